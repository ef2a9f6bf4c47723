package lamina.table.scan

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.format.fileindex.FileIndexSpec
import lamina.table.TestTables
import lamina.table.manifest.{DataFileMeta, SimpleStats}
import lamina.table.predicate._
import lamina.table.schema.TableSchema
import lamina.types.{BigIntType, CharType, DataField, DoubleType, IntType, VarCharType}

/** Which filters a file's bloom filters let planning skip it for: one file holding ids 1..10 and names
 *  n1..n10, indexed on both columns (and on a CHAR column holding "a"). */
class FileIndexFilterTest extends AnyFunSuite {
  private val written = Seq(DataField(0, "id", IntType()), DataField(1, "name", VarCharType(20)), DataField(2, "c", CharType(3)))
  private def schema(fields: Seq[DataField], id: Long = 0) = TableSchema(id, fields, 2, Nil, Nil, Map.empty, None, 0L)

  private val file: DataFileMeta = {
    val w = FileIndexSpec(Seq(FileIndexSpec.BloomColumn("id", 0, IntType(), 100, 0.001),
        FileIndexSpec.BloomColumn("name", 1, VarCharType(20), 100, 0.001),
        FileIndexSpec.BloomColumn("c", 2, CharType(3), 100, 0.001)), 10000).newWriter()
    (1 to 10).foreach(i => w.update(InternalRow(i, UTF8String.fromString(s"n$i"), UTF8String.fromString("a  "))))
    DataFileMeta("data-0.parquet", 1, 10, Array.emptyByteArray, Array.emptyByteArray, SimpleStats.Empty,
      SimpleStats.Empty, 0, 9, 0, 0, embeddedIndex = Some(w.result()._1))
  }
  private val dir = new Path("/t/bucket-0")

  private def mightMatch(current: TableSchema, filters: Predicate*) =
    new FileIndexFilter(TestTables.fileIO, current).mightMatch(file, dir, schema(written), filters)

  test("= and IN skip only when no value is in the filter; AND and OR combine; other filters prove nothing") {
    val s = schema(written)
    assert(mightMatch(s, EqualTo("id", 3)) && mightMatch(s, EqualTo("name", "n10")))
    assert(!mightMatch(s, EqualTo("id", 11)) && !mightMatch(s, EqualTo("name", "n11")))
    assert(mightMatch(s, In("id", Array(11, 12, 5))) && !mightMatch(s, In("id", Array(11, 12))))
    assert(!mightMatch(s, And(EqualTo("id", 3), EqualTo("name", "zz"))))
    assert(mightMatch(s, Or(EqualTo("id", 11), GreaterThan("id", 5))) && !mightMatch(s, Or(EqualTo("id", 11), EqualTo("id", 12))))
    assert(mightMatch(s, EqualTo("id", null)) && mightMatch(s, IsNull("id")) && mightMatch(s, Not(EqualTo("id", 3))))
    // a literal of another type proves nothing; a CHAR column is never skipped on (padding)
    assert(mightMatch(s, EqualTo("id", 11L << 40)) && mightMatch(s, EqualTo("c", "zz")))
  }

  test("columns are found by field id after a rename, and a column whose type changed proves nothing") {
    val renamed = schema(written.updated(0, DataField(0, "key", IntType())), 1)
    assert(!mightMatch(renamed, EqualTo("key", 11)) && mightMatch(renamed, EqualTo("key", 3)))
    val widened = schema(written.updated(0, DataField(0, "id", BigIntType())), 1)
    assert(mightMatch(widened, EqualTo("id", 11L)))
  }

  test("a corrupt embedded index fails naming the data file, never skips it") {
    val bad = file.copy(embeddedIndex = Some(file.embeddedIndex.get.updated(8, 7.toByte)))
    val e = intercept[CorruptFileException](
      new FileIndexFilter(TestTables.fileIO, schema(written)).mightMatch(bad, dir, schema(written), Seq(EqualTo("id", 11))))
    assert(e.getMessage === "Corrupt file /t/bucket-0/data-0.parquet (embedded file index) at offset 8: expected file index " +
      "version 1, found 117440513 (file index)")
  }

  /** ids 1..10 with a bloom filter (fpp 0.5: it proves little) and a bitmap index on `id`, and a bitmap
   *  index on `name`, NULL in rows 1..3 and "same" in the others. */
  private val both: DataFileMeta = {
    val w = FileIndexSpec(Seq(FileIndexSpec.BloomColumn("id", 0, IntType(), 1, 0.5)), 10000,
      Seq(FileIndexSpec.BitmapColumn("id", 0, IntType()), FileIndexSpec.BitmapColumn("name", 1, VarCharType(20)))).newWriter()
    (1 to 10).foreach(i => w.update(InternalRow(i, if (i <= 3) null else UTF8String.fromString("same"), null)))
    file.copy(embeddedIndex = Some(w.result()._1))
  }
  private def bothMightMatch(filters: Predicate*) =
    new FileIndexFilter(TestTables.fileIO, schema(written)).mightMatch(both, dir, schema(written), filters)

  test("a bitmap index proves =, IN, IS NULL, IS NOT NULL and <> beside a bloom filter on the same column") {
    assert(bothMightMatch(EqualTo("id", 3)) && !bothMightMatch(EqualTo("id", 11)) && !bothMightMatch(In("id", Array(0, 11))))
    assert(bothMightMatch(EqualTo("name", "same")) && !bothMightMatch(EqualTo("name", "other")))
    assert(bothMightMatch(IsNull("name")) && !bothMightMatch(IsNull("id")))
    assert(bothMightMatch(IsNotNull("name")) && bothMightMatch(IsNotNull("id")))
    // <>: no row but NULLs and "same"; NOT IN likewise; a NULL literal proves nothing
    assert(!bothMightMatch(Not(EqualTo("name", "same"))) && bothMightMatch(Not(EqualTo("id", 3))))
    assert(!bothMightMatch(Not(In("name", Array("same", "x")))) && bothMightMatch(Not(In("name", Array("same", null)))))
    assert(bothMightMatch(EqualTo("name", null)) && bothMightMatch(Or(EqualTo("name", "other"), IsNull("name"))))
  }

  test("a column written with only NULLs proves IS NOT NULL false; zeros of either sign are one value") {
    val fields = Seq(DataField(0, "d", DoubleType()), DataField(1, "n", IntType()))
    val w = FileIndexSpec(Nil, 10000,
      Seq(FileIndexSpec.BitmapColumn("d", 0, DoubleType()),
        FileIndexSpec.BitmapColumn("n", 1, IntType()))).newWriter()
    w.update(InternalRow(-0.0, null))
    val f = file.copy(embeddedIndex = Some(w.result()._1))
    def might(p: Predicate) = new FileIndexFilter(TestTables.fileIO, schema(fields)).mightMatch(f, dir, schema(fields), Seq(p))
    assert(!might(IsNotNull("n")) && might(IsNull("n")))
    assert(might(EqualTo("d", 0.0)) && might(EqualTo("d", -0.0)) && !might(EqualTo("d", 1.0)))
  }

  test("a bloom filter holding -0.0 does not rule out = 0.0, which SQL finds equal") {
    val fields = Seq(DataField(0, "d", DoubleType()))
    val w = FileIndexSpec(Seq(FileIndexSpec.BloomColumn("d", 0, DoubleType(), 100, 0.001)), 10000).newWriter()
    w.update(InternalRow(-0.0))
    val f = file.copy(embeddedIndex = Some(w.result()._1))
    def might(p: Predicate) = new FileIndexFilter(TestTables.fileIO, schema(fields)).mightMatch(f, dir, schema(fields), Seq(p))
    assert(might(EqualTo("d", 0.0)) && might(In("d", Array(0.0, 7.0))) && !might(EqualTo("d", 7.0)))
  }
}
