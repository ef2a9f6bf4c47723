package lamina.mergetree.function

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import lamina.mergetree.{KeyValue, RowKind}
import lamina.mergetree.MergeTestRows._
import lamina.types._

/** A row-level delete writes its -D record with the whole deleted row, as Paimon's deletes do, where it
 *  once carried the key alone: on every merge engine that honours deletes, the merge of a key's records
 *  is the same either way (the -D removes the row; its values are never merged). */
class DeleteRecordValuesTest extends AnyFunSuite {
  private val fields = Seq(
    field(0, "k", IntType(false)),
    field(1, "total", BigIntType()),
    field(2, "hi", IntType()),
    field(3, "name", VarCharType(VarCharType.MaxLength)))

  // the engines whose DELETE Lamina allows (DmlRules)
  private val engines = Seq(
    "deduplicate" -> Map("merge-engine" -> "deduplicate"),
    "partial-update" -> Map("merge-engine" -> "partial-update", "partial-update.remove-record-on-delete" -> "true"),
    "aggregation" -> Map("merge-engine" -> "aggregation", "aggregation.remove-record-on-delete" -> "true",
      "fields.total.aggregate-function" -> "sum", "fields.hi.aggregate-function" -> "max"))

  private def merged(options: Map[String, String], records: Seq[KeyValue]) = {
    val mf = MergeFunctions.create(fields, Seq("k"), options, "db.t")()
    mf.reset()
    records.foreach(mf.add)
    val result = mf.result().map(kv => (RowKind.shortString(kv.valueKind), values(kv.value, fields)))
    // a kept delete's own values are what was written; the merge decides only which records are kept
    val kept = mf.resultKeepingDelete().map(kv => (kv.sequenceNumber, RowKind.shortString(kv.valueKind)))
    (result, kept)
  }

  /** Random histories of one key: inserts, updates and deletes; each delete as the whole deleted row
   *  (the key's last written values) and as the key alone. */
  private def histories(seed: Long): Seq[(Seq[KeyValue], Seq[KeyValue])] = {
    val rnd = new Random(seed)
    Seq.fill(200) {
      var last: Seq[Any] = Seq(1, null, null, null)
      val steps = (1 to 1 + rnd.nextInt(6)).map { seq =>
        if (rnd.nextInt(3) == 0) {
          val full = kv(seq.toLong, "-D", row(last: _*))
          val bare = kv(seq.toLong, "-D", row(1, null, null, null))
          (full, bare)
        } else {
          last = Seq(1, if (rnd.nextBoolean()) rnd.nextInt(9).toLong else null,
            if (rnd.nextBoolean()) rnd.nextInt(9) else null, if (rnd.nextBoolean()) s"v${rnd.nextInt(9)}" else null)
          val r = kv(seq.toLong, if (rnd.nextBoolean()) "+I" else "+U", row(last: _*))
          (r, r)
        }
      }
      (steps.map(_._1), steps.map(_._2))
    }
  }

  engines.foreach { case (name, options) =>
    test(s"$name: a -D carrying the deleted row merges as one carrying the key alone") {
      histories(20261128L + name.length).foreach { case (full, bare) =>
        assert(merged(options, full) === merged(options, bare), full.map(k => RowKind.shortString(k.valueKind)))
      }
    }
  }
}
