package lamina.table.catalog.jdbc

import java.nio.file.{Path => JPath}
import java.sql.SQLException

import org.apache.hadoop.conf.Configuration
import org.scalatest.BeforeAndAfterEach
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.StorageException
import lamina.table.TestTables
import lamina.table.TestTables.{file, message}
import lamina.table.catalog.Metastores
import lamina.table.commit.FileStoreCommit

/** The metastore's database going away and coming back ([[DroppingDriver]] plays the server). */
class JdbcConnectionsTest extends AnyFunSuite with BeforeAndAfterEach {
  private var dir: JPath = _

  private def uri = DroppingDriver.uri(dir.resolve("catalog.db").toString)
  private def count(c: JdbcConnections): Int =
    c.run(Statements.query(_, "SELECT COUNT(*) FROM t")(_.getInt(1))).head

  override def beforeEach(): Unit = {
    dir = TestTables.tempDir("jdbc-connections")
    DroppingDriver.reset()
  }

  override def afterEach(): Unit = {
    DroppingDriver.reset()
    TestTables.deleteRecursively(dir)
  }

  test("a pooled connection the server dropped is replaced: the call runs again on a new one") {
    val c = new JdbcConnections(uri, Map.empty, 1)
    try {
      c.run(Statements.update(_, "CREATE TABLE t (x INT)"))
      DroppingDriver.dropAll() // a restart between two calls
      assert(count(c) == 0)
      assert(DroppingDriver.opened.get == 2)
      assert(count(c) == 0 && DroppingDriver.opened.get == 2) // the new connection is pooled
    } finally c.close()
  }

  test("while the server is away a call fails with the refusal, carrying the dropped connection's error") {
    val c = new JdbcConnections(uri, Map.empty, 1)
    try {
      c.run(Statements.update(_, "CREATE TABLE t (x INT)"))
      DroppingDriver.dropAll()
      DroppingDriver.refusing = true
      val e = intercept[SQLException](count(c))
      assert(e.getMessage == "Connection to the catalog database refused")
      assert(e.getSuppressed.map(_.getMessage).toSeq == Seq("An I/O error occurred while sending to the backend."))
      assert(intercept[SQLException](count(c)).getSuppressed.isEmpty) // nothing pooled any more
      DroppingDriver.refusing = false
      assert(count(c) == 0)
    } finally c.close()
  }

  test("an error that is not the connection's is not repeated") {
    val c = new JdbcConnections(uri, Map.empty, 1)
    try {
      c.run(Statements.update(_, "CREATE TABLE t (x INT)"))
      var calls = 0
      intercept[SQLException](c.run { conn => calls += 1; Statements.update(conn, "INSERT INTO missing VALUES (1)") })
      assert(calls == 1 && DroppingDriver.opened.get == 1)
    } finally c.close()
  }

  test("metastore calls while the server is away name what failed, the catalog and the uri; then work again") {
    val options = Map("metastore" -> "jdbc", "warehouse" -> dir.resolve("wh").toUri.toString, "uri" -> uri)
    val ms = Metastores.open("c", options, new Configuration())
    try {
      ms.createDatabase("d", Map.empty)
      val t = ms.createTable("d", "t", TestTables.eventsSchema())
      DroppingDriver.dropAll()
      DroppingDriver.refusing = true
      val reason = "Connection to the catalog database refused"
      def failure(what: String) = s"Could not $what in catalog 'c' through its JDBC metastore at $uri: $reason"
      assert(intercept[StorageException](ms.createTable("d", "u", TestTables.eventsSchema())).getMessage ==
        failure("create table d.u"))
      assert(intercept[StorageException](ms.loadTable("d", "t")).getMessage == failure("load table d.t"))
      assert(intercept[StorageException](ms.dropTable("d", "t")).getMessage == failure("drop table d.t"))
      assert(intercept[StorageException](ms.listTables("d")).getMessage == failure("list the tables of database d"))
      assert(intercept[StorageException](ms.renameTable("d", "t", "d", "v")).getMessage ==
        failure("rename table d.t to d.v"))
      assert(intercept[StorageException](ms.dropDatabase("d")).getMessage == failure("drop database d"))
      DroppingDriver.refusing = false
      assert(ms.listTables("d") == Seq("t"))
      assert(!dir.resolve("wh/d.db/u").toFile.exists)
      assert(ms.loadTable("d", "t").schema.id == t.schema.id)
    } finally ms.close()
  }

  test("a commit lock that cannot be asked for fails the commit naming the table; nothing is committed") {
    val options = Map("metastore" -> "jdbc", "warehouse" -> dir.resolve("wh").toUri.toString, "uri" -> uri,
      "lock.enabled" -> "true")
    val ms = Metastores.open("c", options, new Configuration())
    try {
      ms.createDatabase("d", Map.empty)
      val t = ms.createTable("d", "t", TestTables.eventsSchema())
      DroppingDriver.refusing = true
      val e = intercept[StorageException](new FileStoreCommit(t, "w").append(Seq(message("a", file("f1")))))
      assert(e.getMessage == s"Could not take the commit lock of table d.t in catalog 'c' through its JDBC " +
        s"metastore at $uri: Connection to the catalog database refused; nothing was committed")
      assert(t.snapshotManager.latestId().isEmpty)
      val manifests = dir.resolve("wh/d.db/t/manifest").toFile
      assert(Option(manifests.list()).forall(_.isEmpty), manifests.list().mkString(", ")) // no orphans
    } finally ms.close()
  }
}
