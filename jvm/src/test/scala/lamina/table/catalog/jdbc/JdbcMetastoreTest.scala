package lamina.table.catalog.jdbc

import java.nio.file.{Files, Path => JPath}
import java.sql.DriverManager
import java.util.concurrent.{CountDownLatch, Executors, TimeUnit}

import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.scalatest.BeforeAndAfterEach
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.{AlreadyExistsException, BadInputException, NotFoundException}
import lamina.table.TestTables
import lamina.table.catalog.{Metastore, Metastores}
import lamina.table.schema.SchemaChange

class JdbcMetastoreTest extends AnyFunSuite with BeforeAndAfterEach {
  private var dir: JPath = _
  private var ms: Metastore = _

  private def uri = s"jdbc:sqlite:${dir.resolve("catalog.db")}"
  private def options(extra: (String, String)*): Map[String, String] =
    Map("metastore" -> "jdbc", "warehouse" -> dir.resolve("wh").toUri.toString, "uri" -> uri) ++ extra
  private def open(extra: (String, String)*): Metastore = Metastores.open("c", options(extra: _*), new Configuration())

  /** Rows of one of Paimon's tables, as the catalog database holds them. */
  private def rows(sql: String): Seq[Seq[String]] = {
    val c = DriverManager.getConnection(uri)
    try {
      val rs = c.createStatement().executeQuery(sql)
      val n = rs.getMetaData.getColumnCount
      Iterator.continually(rs).takeWhile(_.next()).map(r => (1 to n).map(r.getString)).toList
    } finally c.close()
  }

  override def beforeEach(): Unit = {
    dir = TestTables.tempDir("jdbc-metastore")
    ms = open()
  }

  override def afterEach(): Unit = {
    ms.close()
    TestTables.deleteRecursively(dir)
  }

  test("databases are rows of paimon_database_properties, an empty one marked by exists=true") {
    assert(ms.listDatabases().isEmpty)
    ms.createDatabase("d", Map("owner" -> "ann"))
    assert(ms.databaseExists("d") && !ms.databaseExists("e"))
    assert(ms.listDatabases() == Seq("d"))
    assert(ms.databaseProperties("d") == Map("owner" -> "ann", "location" -> ms.databasePath("d").toString))
    assert(rows("SELECT catalog_key, database_name, property_key, property_value FROM paimon_database_properties " +
      "ORDER BY property_key").map(_.take(3)) == Seq(Seq("jdbc", "d", "exists"), Seq("jdbc", "d", "location"),
      Seq("jdbc", "d", "owner")))
    assert(intercept[AlreadyExistsException](ms.createDatabase("d", Map.empty)).getMessage == "Database d already exists")
    assert(intercept[NotFoundException](ms.databaseProperties("e")).getMessage == "Database e does not exist")
    ms.dropDatabase("d")
    assert(ms.listDatabases().isEmpty && rows("SELECT * FROM paimon_database_properties").isEmpty)
  }

  test("create, load, list, alter and drop a table: a row in paimon_tables, the schema in files") {
    ms.createDatabase("d", Map.empty)
    val t = ms.createTable("d", "t", TestTables.eventsSchema())
    assert(t.path == ms.tablePath("d", "t"))
    assert(rows("SELECT catalog_key, database_name, table_name FROM paimon_tables") == Seq(Seq("jdbc", "d", "t")))
    assert(ms.tableExists("d", "t") && !ms.tableExists("d", "u"))
    assert(ms.listTables("d") == Seq("t"))
    assert(ms.loadTable("d.t").schema == t.schema)
    assert(intercept[AlreadyExistsException](ms.createTable("d", "t", TestTables.eventsSchema())).getMessage ==
      "Table d.t already exists")
    val next = ms.alterTable(t, Seq(SchemaChange.SetOption("snapshot.num-retained.max", "5")))
    assert(next.id == 1 && ms.loadTable("d", "t").schema.options("snapshot.num-retained.max") == "5")
    assert(ms.dropTable("d", "t"))
    assert(!ms.dropTable("d", "t"))
    assert(!ms.tableExists("d", "t") && !Files.exists(dir.resolve("wh/d.db/t")))
    assert(intercept[NotFoundException](ms.loadTable("d", "t")).getMessage == "Table d.t does not exist")
  }

  test("a table directory without a row is not a table of the catalog") {
    ms.createDatabase("d", Map.empty)
    val fs = Metastores.open("c", options("metastore" -> "filesystem"), new Configuration())
    fs.createTable("d", "files_only", TestTables.eventsSchema())
    assert(!ms.tableExists("d", "files_only") && ms.listTables("d").isEmpty)
  }

  test("creating a table in a missing database is refused and leaves nothing") {
    assert(intercept[NotFoundException](ms.createTable("nope", "t", TestTables.eventsSchema())).getMessage ==
      "Database nope does not exist")
    assert(rows("SELECT * FROM paimon_tables").isEmpty && !Files.exists(dir.resolve("wh/nope.db")))
  }

  test("a schema that cannot be written takes its row back") {
    ms.createDatabase("d", Map.empty)
    val fs = Metastores.open("c", options("metastore" -> "filesystem"), new Configuration())
    fs.createTable("d", "t", TestTables.eventsSchema()) // files at the path already
    intercept[BadInputException](ms.createTable("d", "t", TestTables.eventsSchema()))
    assert(rows("SELECT * FROM paimon_tables").isEmpty)
  }

  test("a row whose schema files are gone says so on load, and DROP TABLE removes it") {
    ms.createDatabase("d", Map.empty)
    ms.createTable("d", "t", TestTables.eventsSchema())
    TestTables.deleteRecursively(dir.resolve("wh/d.db/t"))
    val e = intercept[BadInputException](ms.loadTable("d", "t"))
    assert(!e.isInstanceOf[NotFoundException], "Spark would report a missing table and drop the message")
    assert(e.getMessage ==
      s"Table d.t is registered in the JDBC catalog 'jdbc' but has no schema files at ${ms.tablePath("d", "t")}; " +
      "DROP TABLE d.t removes the registration")
    assert(ms.dropTable("d", "t") && ms.listTables("d").isEmpty)
  }

  test("two threads creating one table: one wins, the other gets already exists") {
    ms.createDatabase("d", Map.empty)
    val other = open()
    val pool = Executors.newFixedThreadPool(2)
    val start = new CountDownLatch(1)
    try {
      val results = Seq(ms, other).map { m =>
        pool.submit(() => { start.await(); Try(m.createTable("d", "t", TestTables.eventsSchema())) })
      }
      start.countDown()
      val outcomes = results.map(_.get(60, TimeUnit.SECONDS))
      assert(outcomes.count(_.isSuccess) == 1)
      val failure = outcomes.find(_.isFailure).get.failed.get
      assert(failure.isInstanceOf[AlreadyExistsException] && failure.getMessage == "Table d.t already exists")
      assert(ms.loadTable("d", "t").schema.id == 0 && rows("SELECT table_name FROM paimon_tables") == Seq(Seq("t")))
    } finally {
      pool.shutdown()
      other.close()
    }
  }

  test("rename moves the row and the directory; an existing target or missing source is refused") {
    ms.createDatabase("d", Map.empty)
    ms.createDatabase("e", Map.empty)
    ms.createTable("d", "t", TestTables.eventsSchema())
    ms.createTable("d", "u", TestTables.eventsSchema())
    assert(intercept[AlreadyExistsException](ms.renameTable("d", "t", "d", "u")).getMessage == "Table d.u already exists")
    ms.renameTable("d", "t", "e", "t2")
    assert(ms.listTables("d") == Seq("u") && ms.listTables("e") == Seq("t2"))
    assert(!Files.exists(dir.resolve("wh/d.db/t")) && Files.exists(dir.resolve("wh/e.db/t2/schema/schema-0")))
    assert(ms.loadTable("e", "t2").name == "e.t2")
    assert(intercept[NotFoundException](ms.renameTable("d", "t", "d", "v")).getMessage == "Table d.t does not exist")
    assert(intercept[NotFoundException](ms.renameTable("d", "u", "f", "v")).getMessage == "Database f does not exist")
  }

  test("dropping a database drops its tables' rows and files") {
    ms.createDatabase("d", Map.empty)
    ms.createTable("d", "t", TestTables.eventsSchema())
    ms.dropDatabase("d")
    assert(!ms.databaseExists("d") && rows("SELECT * FROM paimon_tables").isEmpty)
    assert(!Files.exists(dir.resolve("wh/d.db")))
  }

  test("catalogs with different catalog-key share one database without seeing each other") {
    val other = open("catalog-key" -> "other")
    try {
      ms.createDatabase("d", Map.empty)
      assert(other.listDatabases().isEmpty && !other.databaseExists("d"))
    } finally other.close()
  }

  test("names are checked before they reach a query") {
    intercept[BadInputException](ms.createDatabase("../x", Map.empty))
    intercept[BadInputException](ms.tableExists("d", "a/b"))
  }

  test("sync-all-properties keeps paimon_table_properties with the table: create, alter, rename, drop") {
    ms.close()
    ms = open("sync-all-properties" -> "true")
    ms.createDatabase("d", Map.empty)
    val schema = TestTables.eventsSchema(Map("bucket" -> "2", "file.format" -> "orc")).copy(primaryKeys = Seq("id", "p"))
    val t = ms.createTable("d", "t", schema)
    def props(table: String): Seq[Seq[String]] = rows("SELECT catalog_key, database_name, table_name, property_key, " +
      s"property_value FROM paimon_table_properties WHERE table_name = '$table' ORDER BY property_key")
    assert(props("t") == Seq(Seq("jdbc", "d", "t", "bucket", "2"), Seq("jdbc", "d", "t", "bucket-key", "id"),
      Seq("jdbc", "d", "t", "file.format", "orc"), Seq("jdbc", "d", "t", "partition", "p"),
      Seq("jdbc", "d", "t", "primary-key", "id,p")))
    ms.alterTable(t, Seq(SchemaChange.RemoveOption("file.format"), SchemaChange.SetOption("snapshot.num-retained.max", "5")))
    assert(props("t").map(_(3)) == Seq("bucket", "bucket-key", "partition", "primary-key", "snapshot.num-retained.max"))
    lamina.api.Branching.create(ms, "d.t", "b", None)
    ms.alterTable(ms.loadTable("d.t$branch_b"), Seq(SchemaChange.SetOption("snapshot.num-retained.max", "9")))
    assert(props("t").find(_(3) == "snapshot.num-retained.max").map(_(4)).contains("5"),
      "only the main branch's options are synced")
    ms.renameTable("d", "t", "d", "u")
    assert(props("t").isEmpty && props("u").map(_(3)).contains("primary-key"))
    assert(ms.dropTable("d", "u"))
    assert(rows("SELECT * FROM paimon_table_properties").isEmpty)
    ms.createTable("d", "v", schema)
    ms.dropDatabase("d")
    assert(rows("SELECT * FROM paimon_table_properties").isEmpty)
  }

  test("option errors name the option") {
    def refused(o: Map[String, String]): String =
      intercept[BadInputException](Metastores.open("c", o, new Configuration())).getMessage
    val base = options()
    assert(refused(base - "uri") == "Catalog 'c': metastore 'jdbc' needs the option 'uri' " +
      "(spark.sql.catalog.c.uri=jdbc:sqlite:/path/catalog.db or jdbc:postgresql://host/db)")
    assert(refused(base + ("uri" -> "sqlite:x")) ==
      "Catalog 'c': option 'uri' must be a JDBC URL starting with 'jdbc:', not 'sqlite:x'")
    assert(refused(base + ("uri" -> "jdbc:sqlite::memory:")) ==
      "Catalog 'c': option 'uri' = 'jdbc:sqlite::memory:' is an in-memory SQLite database, which is a different " +
      "database on each of the 2 pooled connections; use a file (jdbc:sqlite:/path/catalog.db) or set " +
      "'client-pool-size' to 1")
    assert(refused(base + ("client-pool-size" -> "0")) ==
      "Catalog 'c': option 'client-pool-size' must be a positive integer, not '0'")
    assert(refused(base + ("sync-all-properties" -> "yes")) ==
      "Catalog 'c': option 'sync-all-properties' must be true or false, not 'yes'")
    assert(refused(base + ("metastore" -> "glue")) == "Catalog 'c': metastore 'glue' is not supported (unknown " +
      "metastore); set spark.sql.catalog.c.metastore to one of filesystem, jdbc, hive")
    assert(refused(base - "warehouse") ==
      "Catalog 'c' needs the option 'warehouse': set spark.sql.catalog.c.warehouse=PATH")
    assert(refused(base + ("uri" -> s"jdbc:sqlite:${dir.resolve("no/such/dir/c.db")}"))
        .startsWith(s"Catalog 'c': cannot open the JDBC catalog at 'jdbc:sqlite:${dir.resolve("no/such/dir/c.db")}' " +
          "(option 'uri'): "))
  }

  test("one in-memory SQLite connection is allowed: every call sees the same database") {
    val mem = Metastores.open("c", options("uri" -> "jdbc:sqlite::memory:", "client-pool-size" -> "1"),
      new Configuration())
    try {
      mem.createDatabase("d", Map.empty)
      assert(mem.listDatabases() == Seq("d"))
    } finally mem.close()
  }

  test("SQLite runs in WAL mode") {
    ms.createDatabase("d", Map.empty)
    assert(rows("PRAGMA journal_mode") == Seq(Seq("wal")))
  }
}
