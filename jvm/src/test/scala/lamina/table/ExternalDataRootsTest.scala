package lamina.table

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.table.manifest.{DataFileMeta, SimpleStats}
import lamina.types.VarCharType

/** Which external roots a table's options give its writers, and where its data files then lie. */
class ExternalDataRootsTest extends AnyFunSuite {
  private val roots = "file:///x/a, s3://bucket/b ,file:///x/c"

  private def of(options: (String, String)*) = ExternalDataRoots.of(options.toMap, "db.t").map(_.toString)

  private def refused(options: (String, String)*): String =
    intercept[BadInputException](ExternalDataRoots.of(options.toMap, "db.t")).getMessage

  test("none, the default, keeps files in the table's directory whatever roots are listed") {
    assert(of("data-file.external-paths" -> roots).isEmpty)
    assert(of("data-file.external-paths" -> roots, "data-file.external-paths.strategy" -> "none").isEmpty)
    assert(of("data-file.external-paths.strategy" -> "round-robin").isEmpty)
  }

  test("round-robin takes every root in order; specific-fs those of its scheme, in any case") {
    assert(of("data-file.external-paths" -> roots, "data-file.external-paths.strategy" -> "round-robin") ==
      Seq("file:/x/a", "s3://bucket/b", "file:/x/c"))
    assert(of("data-file.external-paths" -> roots, "data-file.external-paths.strategy" -> "specific-fs",
      "data-file.external-paths.specific-fs" -> "FILE") == Seq("file:/x/a", "file:/x/c"))
    assert(of("data-file.external-paths" -> "oss://bucket", "data-file.external-paths.strategy" -> "round-robin") ==
      Seq("oss://bucket"))
  }

  test("a strategy, a scheme or a root that cannot be used is refused naming the option") {
    assert(refused("data-file.external-paths" -> roots, "data-file.external-paths.strategy" -> "random") ==
      "Table db.t: Invalid value 'random' for option 'data-file.external-paths.strategy': expected one of " +
      "none, specific-fs, round-robin, entropy-inject, weight-robin")
    assert(refused("data-file.external-paths" -> roots, "data-file.external-paths.strategy" -> "specific-fs") ==
      "Table db.t: option 'data-file.external-paths.specific-fs' must name a scheme (s3, oss, file, ...) when " +
      "'data-file.external-paths.strategy' is 'specific-fs'")
    assert(refused("data-file.external-paths" -> roots, "data-file.external-paths.strategy" -> "specific-fs",
      "data-file.external-paths.specific-fs" -> "oss") ==
      "Invalid value 'oss' for option 'data-file.external-paths.specific-fs' of table db.t: no root of " +
      "'data-file.external-paths' (file:///x/a, s3://bucket/b, file:///x/c) has this scheme")
    assert(refused("data-file.external-paths" -> "relative/dir", "data-file.external-paths.strategy" -> "round-robin") ==
      "Invalid value 'relative/dir' for option 'data-file.external-paths' of table db.t: a root must be a URI with " +
      "a scheme, such as file:///data/t or s3://bucket/t")
    assert(refused("data-file.external-paths" -> "/abs/dir", "data-file.external-paths.strategy" -> "round-robin")
        .contains("a root must be a URI with a scheme"))
    assert(refused("data-file.external-paths" -> "file:rel", "data-file.external-paths.strategy" -> "round-robin") ==
      "Invalid value 'file:rel' for option 'data-file.external-paths' of table db.t: a root's path must be absolute")
  }

  test("a data file under an external root lies at the table's layout there, and is found by its recorded path") {
    val paths = new FileStorePaths(new Path("file:/w/db.db/t"), Seq("p"), Seq(VarCharType.string()), "__DEFAULT__",
      externalRoots = Seq(new Path("file:/x/a"), new Path("file:/x/b")))
    val partition = InternalRow(UTF8String.fromString("v"))
    val dir = paths.newFilesDir(partition, 3)
    val placed = (1 to 4).map(i => dir.place(s"data-$i.parquet"))
    assert(placed.forall(_.external))
    assert(placed.map(_.path.getParent.toString).toSet == Set("file:/x/a/p=v/bucket-3", "file:/x/b/p=v/bucket-3"))
    val file = DataFileMeta("data-1.parquet", 1L, 1L, Array.emptyByteArray, Array.emptyByteArray, SimpleStats.Empty,
      SimpleStats.Empty, 0L, 0L, 0L, 0, extraFiles = Seq("data-1.parquet.index"))
    assert(paths.dataFile(partition, 3, file).toString == "file:/w/db.db/t/p=v/bucket-3/data-1.parquet")
    val outside = file.copy(externalPath = placed.head.externalPath)
    assert(paths.dataFileWithExtras(partition, 3, outside).map(_.toString) ==
      Seq(placed.head.path.toString, s"${placed.head.path.getParent}/data-1.parquet.index"))
  }
}
