package lamina.table.schema

import java.util.concurrent.{CountDownLatch, Executors, TimeUnit}

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration._

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.{AlreadyExistsException, BadInputException, NotFoundException}
import lamina.table.TestTables
import lamina.types._

class SchemaManagerTest extends AnyFunSuite with BeforeAndAfterAll {
  private val root = TestTables.tempDir("schema-manager")
  override def afterAll(): Unit = TestTables.deleteRecursively(root)

  private var n = 0
  private def newManager(): (SchemaManager, java.nio.file.Path) = {
    n += 1
    val dir = root.resolve(s"t$n")
    (new SchemaManager(TestTables.fileIO, TestTables.hadoopPath(dir), "db.t"), dir)
  }

  test("create writes schema-0 once; latest and all read it back") {
    val (m, dir) = newManager()
    assert(m.latest() === None)
    assert(m.listIds() === Nil)
    val s = TestTables.eventsSchema(Map("bucket" -> "-1"))
    m.create(s)
    assert(java.nio.file.Files.exists(dir.resolve("schema/schema-0")))
    assert(m.listIds() === Seq(0L))
    assert(m.latest() === Some(s))
    assert(m.schema(0) === s)
    val e = intercept[AlreadyExistsException](m.create(s))
    assert(
      e.getMessage === s"Table db.t already exists: it has a schema at ${new org.apache.hadoop.fs.Path(TestTables.hadoopPath(dir), "schema")}")
  }

  test("commitChanges writes the next id and leaves older schemas readable") {
    val (m, _) = newManager()
    val s0 = TestTables.eventsSchema()
    m.create(s0)
    val s1 = m.commitChanges(Seq(SchemaChange.AddColumn("n", IntType(), None)))
    val s2 = m.commitChanges(Seq(SchemaChange.SetOption("target-file-size", "1 mb")))
    assert((s1.id, s2.id) === ((1L, 2L)))
    assert(m.listIds() === Seq(0L, 1L, 2L))
    assert(m.latest() === Some(s2))
    assert(m.all() === Seq(s0, s1, s2))
    assert(s2.fieldNames === Seq("id", "v", "p", "n"))
    assert(s2.options === Map("target-file-size" -> "1 mb"))
  }

  test("a rejected change commits nothing") {
    val (m, _) = newManager()
    m.create(TestTables.eventsSchema())
    intercept[BadInputException](m.commitChanges(Seq(SchemaChange.DropColumn("p"))))
    assert(m.listIds() === Seq(0L))
  }

  test("missing schemas and tables are NotFound with the table in the message") {
    val (m, dir) = newManager()
    val e = intercept[NotFoundException](m.commitChanges(Seq(SchemaChange.UpdateComment(None))))
    assert(e.getMessage === "Table db.t has no schema")
    m.create(TestTables.eventsSchema())
    val e2 = intercept[NotFoundException](m.schema(5))
    assert(m.schemaPath(5).toString.endsWith(s"/t${n}/schema/schema-5"))
    assert(e2.getMessage === s"Schema 5 of table db.t does not exist (${m.schemaPath(5)})")
  }

  test("listIds ignores files that are not schema files") {
    val (m, dir) = newManager()
    m.create(TestTables.eventsSchema())
    val sd = dir.resolve("schema")
    for (name <- Seq("schema-", "schema-x", ".schema-3.tmp", "schema-1.bak", "other"))
      java.nio.file.Files.write(sd.resolve(name), Array[Byte](1))
    assert(m.listIds() === Seq(0L))
  }

  test("concurrent commitChanges from several threads all land with distinct ids") {
    val (m, _) = newManager()
    m.create(TestTables.eventsSchema())
    val threads = 6
    val pool = Executors.newFixedThreadPool(threads)
    implicit val ec: ExecutionContext = ExecutionContext.fromExecutor(pool)
    val start = new CountDownLatch(1)
    try {
      val results = (0 until threads).map { i =>
        Future {
          start.await()
          m.commitChanges(Seq(SchemaChange.AddColumn(s"c$i", IntType(), None)))
        }
      }
      start.countDown()
      val committed = Await.result(Future.sequence(results), 60.seconds)
      assert(committed.map(_.id).sorted === (1L to threads.toLong))
      val last = m.latest().get
      assert(last.id === threads.toLong)
      assert(last.fieldNames.drop(3).sorted === (0 until threads).map(i => s"c$i"))
      assert(last.fields.map(_.id).distinct.size === last.fields.size)
      assert(last.highestFieldId === 2 + threads)
      // each committed schema is exactly the previous one plus its own column
      for (id <- 1L to threads.toLong)
        assert(m.schema(id).fields.size === 3 + id.toInt)
    } finally {
      pool.shutdownNow()
      pool.awaitTermination(10, TimeUnit.SECONDS)
    }
  }
}
