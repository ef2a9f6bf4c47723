package lamina.table.options

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.format.fileindex.FileIndexSpec
import lamina.types.{BooleanType, DataField, IntType, VarCharType}

class FileIndexOptionsTest extends AnyFunSuite {
  private val fields = Seq(DataField(0, "id", IntType()), DataField(1, "s", VarCharType(10)), DataField(2, "b", BooleanType()))

  test("bloom-filter columns resolve to their ordinals, types and sizing; per-column keys are implemented") {
    val spec = FileIndexOptions.spec(Map("file-index.bloom-filter.columns" -> "s, id",
        "file-index.bloom-filter.s.fpp" -> "0.05", "file-index.bloom-filter.id.items" -> "10",
        "file-index.in-manifest-threshold" -> "1 kb"), fields, "db.t")
    assert(spec === Some(FileIndexSpec(Seq(FileIndexSpec.BloomColumn("s", 1, VarCharType(10), 1000000, 0.05),
          FileIndexSpec.BloomColumn("id", 0, IntType(), 10, 0.1)), 1024)))
    assert(FileIndexOptions.spec(Map.empty, fields, "db.t") === None)
    CoreOptions.validate(Map("file-index.bloom-filter.s.fpp" -> "0.05"), "db.t")
    assert(UnsupportedFeatures.support("file-index.bloom-filter.s.items") === UnsupportedFeatures.Support.Implemented)
  }

  test("a missing column, a type without a bloom filter and a bad sizing are refused by name") {
    def refused(options: (String, String)*) =
      intercept[BadInputException](FileIndexOptions.spec(options.toMap, fields, "db.t")).getMessage
    assert(refused("file-index.bloom-filter.columns" -> "nope") ===
      "Table db.t: file-index.bloom-filter.columns names column 'nope', which the table does not have")
    assert(refused("file-index.bloom-filter.columns" -> "b") ===
      "Table db.t: file-index.bloom-filter.columns names column 'b' of type BOOLEAN, which bloom filters do not index")
    assert(refused("file-index.bloom-filter.columns" -> "id", "file-index.bloom-filter.id.fpp" -> "1.5") ===
      "Table db.t: option 'file-index.bloom-filter.id.fpp' = '1.5' is not valid (expected a probability between 0 and 1)")
  }

  test("bitmap columns resolve with their version and block size; a bitmap-indexed table writes v1 Parquet pages") {
    val spec = FileIndexOptions.spec(Map("file-index.bitmap.columns" -> "b,s", "file-index.bloom-filter.columns" -> "s",
        "file-index.bitmap.b.version" -> "1", "file-index.bitmap.s.index-block-size" -> "1 kb"), fields, "db.t").get
    assert(spec.bitmaps === Seq(FileIndexSpec.BitmapColumn("b", 2, BooleanType(), 1, 16 * 1024),
      FileIndexSpec.BitmapColumn("s", 1, VarCharType(10), 2, 1024)))
    assert(spec.bloomFilters.map(_.name) === Seq("s"))
    assert(UnsupportedFeatures.support("file-index.bitmap.s.version") === UnsupportedFeatures.Support.Implemented)
    val bad = intercept[BadInputException](FileIndexOptions.spec(Map("file-index.bitmap.columns" -> "id",
          "file-index.bitmap.id.index-block-size" -> "0 b"), fields, "db.t"))
    assert(bad.getMessage ===
      "Table db.t: option 'file-index.bitmap.id.index-block-size' = '0 b' is not valid (expected a memory size of at least 1 b)")
    assert(FileIndexOptions.parquetWriterVersion(Map("file-index.bitmap.columns" -> "id")) === ParquetWriterVersion.V1)
    assert(FileIndexOptions.parquetWriterVersion(Map.empty) === ParquetWriterVersion.V2)
    assert(FileIndexOptions.parquetWriterVersion(Map("file-index.bitmap.columns" -> "id",
        "parquet.writer.version" -> "v2")) === ParquetWriterVersion.V2)
  }
}
