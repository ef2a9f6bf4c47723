package lamina.table.catalog

import org.apache.hadoop.fs.Path
import org.scalatest.funsuite.AnyFunSuite

import lamina.table.TestTables
import lamina.table.schema.SchemaChange

/** Dropping a table's files: its directory and, as Paimon's catalogs do, the external roots its schemas list. */
class TableFilesTest extends AnyFunSuite {

  test("a dropped table takes the external roots of every schema with it; a root it cannot reach is left") {
    val dir = TestTables.tempDir("table-files")
    val first = TestTables.hadoopPath(dir.resolve("first"))
    val second = TestTables.hadoopPath(dir.resolve("second"))
    val unrelated = TestTables.hadoopPath(dir.resolve("unrelated"))
    def roots(r: String) = Map("data-file.external-paths" -> r, "data-file.external-paths.strategy" -> "round-robin")
    val table = TestTables.createTable(dir, TestTables.eventsSchema(roots(s"$first,nosuch://host/x")))
    table.schemaManager.commitChanges(Seq(SchemaChange.SetOption("data-file.external-paths", second.toString)))
    Seq(first, second, unrelated).foreach(r => table.fileIO.writeBytes(new Path(r, "p=a/bucket-0/f"), Array[Byte](1)))
    TableFiles.delete(table.fileIO, table.path, table.name)
    assert(!table.fileIO.exists(table.path))
    assert(!table.fileIO.exists(first) && !table.fileIO.exists(second))
    assert(table.fileIO.exists(unrelated))
    TestTables.deleteRecursively(dir)
  }
}
