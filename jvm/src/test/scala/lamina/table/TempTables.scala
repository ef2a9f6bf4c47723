package lamina.table

import org.scalatest.{BeforeAndAfterAll, Suite}

import lamina.table.schema.TableSchema

/** A suite's tables, each created in a directory of its own under one temporary root that is removed
 *  after the suite. */
trait TempTables extends BeforeAndAfterAll { self: Suite =>
  private lazy val root = TestTables.tempDir(getClass.getSimpleName)
  private var n = 0

  override def afterAll(): Unit =
    try TestTables.deleteRecursively(root)
    finally super.afterAll()

  protected def newTable(schema: TableSchema): FileStoreTable = synchronized {
    n += 1
    TestTables.createTable(root.resolve(s"t$n"), schema)
  }
}
