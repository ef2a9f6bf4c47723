package lamina.mergetree.function

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, ObjectInputStream, ObjectOutputStream}

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.mergetree.MergeFunctionFactory
import lamina.types.{BigIntType, DataField, IntType, VarCharType}

/** The factory the readers ship to executors survives Java serialization for every kind of table
 *  (a sequence field once made it capture a non-serializable getter: every executor read failed). */
class MergeFunctionFactoryTest extends AnyFunSuite {
  private val fields = Seq(DataField(0, "id", IntType(nullable = false)), DataField(1, "v", VarCharType.string()),
    DataField(2, "ts", BigIntType()))

  private def roundTrip(f: MergeFunctionFactory): MergeFunctionFactory = {
    val bytes = new ByteArrayOutputStream()
    val out = new ObjectOutputStream(bytes)
    out.writeObject(f)
    out.close()
    new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray)).readObject().asInstanceOf[MergeFunctionFactory]
  }

  Seq(
    "deduplicate" -> Map.empty[String, String],
    "sequence.field" -> Map("sequence.field" -> "ts"),
    "partial-update" -> Map("merge-engine" -> "partial-update"),
    "partial-update with a sequence group" -> Map("merge-engine" -> "partial-update", "fields.ts.sequence-group" -> "v"),
    "aggregation" -> Map("merge-engine" -> "aggregation", "fields.ts.aggregate-function" -> "sum"),
    "first-row" -> Map("merge-engine" -> "first-row")
  ).foreach { case (what, options) =>
    test(s"$what: serializable, and makes a fresh merge function after the trip") {
      val f = roundTrip(MergeFunctions.factory(fields, Seq("id"), options, "db.t"))
      val a = f.create()
      assert(a ne f.create())
    }
  }

  test("bad options fail where a merge function is first made, naming the table") {
    val f = roundTrip(MergeFunctions.factory(fields, Seq("id"), Map("sequence.field" -> "nope"), "db.t"))
    assert(intercept[BadInputException](f.create()).getMessage.startsWith("Table db.t: "))
  }
}
