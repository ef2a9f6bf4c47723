package lamina.table.commit

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, ObjectInputStream, ObjectOutputStream}

import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite

class DeletedPositionsTest extends AnyFunSuite {
  private def positions(d: DeletedPositions): Map[String, Seq[Long]] =
    d.files.map { case (f, b) => f -> b.iterator().asScala.map(_.longValue).toSeq }

  test("positions by file, each once; tasks' positions merged; a negative position refused") {
    val one = new DeletedPositions
    Seq("a" -> 3L, "a" -> 1L, "b" -> 0L, "a" -> 3L).foreach { case (f, p) => one.add(f, p) }
    val two = new DeletedPositions
    two.add("b", 5L)
    two.add("c", 1L << 40)
    val all = DeletedPositions.merged(Seq(one, two))
    assert(positions(all) === Map("a" -> Seq(1L, 3L), "b" -> Seq(0L, 5L), "c" -> Seq(1L << 40)))
    assert(all.count === 5 && !all.isEmpty && new DeletedPositions().isEmpty)
    assert(intercept[IllegalArgumentException](one.add("a", -1)).getMessage.contains("of a must be at least 0"))
  }

  test("travels from executors to the driver by Java serialization, and keeps adding after") {
    val d = new DeletedPositions
    d.add("a", 7L)
    val out = new ByteArrayOutputStream()
    new ObjectOutputStream(out).writeObject(d)
    val back = new ObjectInputStream(new ByteArrayInputStream(out.toByteArray)).readObject().asInstanceOf[DeletedPositions]
    back.add("a", 8L)
    assert(positions(back) === Map("a" -> Seq(7L, 8L)))
  }
}
