package lamina.table.catalog.jdbc

import java.nio.file.{Files, Path => JPath}
import java.sql.DriverManager

import org.apache.hadoop.conf.Configuration
import org.scalatest.BeforeAndAfterEach
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.{BadInputException, CommitLockTimeoutException}
import lamina.table.TestTables
import lamina.table.TestTables.{file, message}
import lamina.table.catalog.{Metastore, Metastores}
import lamina.table.commit.FileStoreCommit
import lamina.table.schema.SchemaChange

class JdbcCommitLockTest extends AnyFunSuite with BeforeAndAfterEach {
  private var dir: JPath = _
  private var ms: Metastore = _

  private def uri = s"jdbc:sqlite:${dir.resolve("catalog.db")}"
  private def options(extra: (String, String)*): Map[String, String] =
    Map("metastore" -> "jdbc", "warehouse" -> dir.resolve("wh").toUri.toString, "uri" -> uri, "lock.enabled" -> "true",
      "lock-acquire-timeout" -> "300 ms", "lock-check-max-sleep" -> "50 ms") ++ extra

  private def sql(statement: String): Unit = {
    val c = DriverManager.getConnection(uri)
    try c.createStatement().executeUpdate(statement)
    finally c.close()
  }

  private def lockRows(): Int = {
    val c = DriverManager.getConnection(uri)
    try {
      val rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM paimon_distributed_locks")
      rs.next()
      rs.getInt(1)
    } finally c.close()
  }

  /** Another writer holding the lock of d.t since now, for an hour. */
  private def holdLock(): Unit =
    sql("INSERT INTO paimon_distributed_locks (lock_id, expire_time_seconds) VALUES ('jdbc.d.t', 3600)")

  override def beforeEach(): Unit = {
    dir = TestTables.tempDir("jdbc-lock")
    ms = Metastores.open("c", options(), new Configuration())
    ms.createDatabase("d", Map.empty)
  }

  override def afterEach(): Unit = {
    ms.close()
    TestTables.deleteRecursively(dir)
  }

  test("a commit takes the lock row and gives it back") {
    val t = ms.createTable("d", "t", TestTables.eventsSchema())
    assert(t.commitLock.isInstanceOf[JdbcCommitLock])
    val id = new FileStoreCommit(t, "w").append(Seq(message("a", file("f1"))))
    assert(id.contains(1L) && lockRows() == 0)
  }

  test("a lock held by another writer times out naming the table and the lock; nothing is committed") {
    val t = ms.createTable("d", "t", TestTables.eventsSchema())
    holdLock()
    val e = intercept[CommitLockTimeoutException](new FileStoreCommit(t, "w").append(Seq(message("a", file("f1")))))
    assert(e.getMessage.startsWith("Could not acquire the commit lock of table d.t within 300 ms " +
        "(lock-acquire-timeout): lock 'jdbc.d.t' in paimon_distributed_locks is held since "))
    assert(e.getMessage.endsWith(" (it expires 3600 s after that); nothing was committed"))
    assert(t.snapshotManager.latestId().isEmpty)
    assert(!Files.exists(dir.resolve("wh/d.db/t/manifest")) ||
      Files.list(dir.resolve("wh/d.db/t/manifest")).count() == 0)
  }

  test("ALTER TABLE waits for the lock too") {
    val t = ms.createTable("d", "t", TestTables.eventsSchema())
    holdLock()
    intercept[CommitLockTimeoutException](ms.alterTable(t, Seq(SchemaChange.SetOption("bucket-key", "id"))))
    assert(ms.loadTable("d", "t").schema.id == 0)
  }

  test("a holder past its expiry is cleared and the commit goes ahead") {
    val t = ms.createTable("d", "t", TestTables.eventsSchema())
    sql("INSERT INTO paimon_distributed_locks (lock_id, acquired_at, expire_time_seconds) " +
      "VALUES ('jdbc.d.t', '2000-01-01 00:00:00', 60)")
    assert(new FileStoreCommit(t, "w").append(Seq(message("a", file("f1")))).contains(1L))
    assert(lockRows() == 0)
  }

  test("tables of a catalog without lock.enabled commit without the lock table") {
    val other = Metastores.open("c", options("lock.enabled" -> "false", "catalog-key" -> "k2"), new Configuration())
    try {
      other.createDatabase("d", Map.empty)
      val t = other.createTable("d", "u", TestTables.eventsSchema())
      holdLock()
      assert(new FileStoreCommit(t, "w").append(Seq(message("a", file("f1")))).contains(1L))
    } finally other.close()
  }

  test("lock option errors name the option") {
    def refused(extra: (String, String)*): String =
      intercept[BadInputException](Metastores.open("c", options(extra: _*), new Configuration())).getMessage
    assert(refused("lock.enabled" -> "yes") == "Catalog 'c': option 'lock.enabled' must be true or false, not 'yes'")
    assert(refused("lock-acquire-timeout" -> "soon") ==
      "Catalog 'c': option 'lock-acquire-timeout' must be a positive duration such as 8 min, not 'soon'")
    assert(refused("lock-check-max-sleep" -> "0 s") ==
      "Catalog 'c': option 'lock-check-max-sleep' must be a positive duration such as 8 s, not '0 s'")
  }
}
