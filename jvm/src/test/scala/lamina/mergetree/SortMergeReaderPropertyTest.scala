package lamina.mergetree

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.scalatest.funsuite.AnyFunSuite

import lamina.mergetree.function.MergeFunctions
import lamina.types._
import MergeTestRows._

/** Random upsert/delete histories per merge engine, split into random sorted runs, merged by
 *  [[SortMergeReader]] (in one pass, and in two passes as compaction below the top level would) and
 *  compared with a plain in-memory model of the engine's semantics. Seeds are fixed. */
class SortMergeReaderPropertyTest extends AnyFunSuite {
  private val fields =
    Seq(field(0, "k", IntType(false)), field(1, "a", IntType()), field(2, "b", IntType()), field(3, "s", BigIntType()))

  private final case class Rec(seq: Long, kind: Byte, k: Int, a: Any, b: Any, s: Any) {
    def kv: KeyValue = new KeyValue(row(k), seq, kind, row(k, a, b, s))
    def isAdd: Boolean = RowKind.isAdd(kind)
  }

  private type Model = Seq[Rec] => Map[Int, Seq[Any]]

  private def history(rnd: Random, n: Int, keys: Int, retracts: Boolean, retractKinds: Seq[Byte]): Seq[Rec] =
    (1 to n).map { i =>
      def v(range: Int): Any = if (rnd.nextInt(5) == 0) null else rnd.nextInt(range)
      val kind = if (retracts && rnd.nextInt(4) == 0) retractKinds(rnd.nextInt(retractKinds.size))
      else if (rnd.nextBoolean()) RowKind.Insert else RowKind.UpdateAfter
      Rec(i.toLong, kind, rnd.nextInt(keys), v(100), v(100), if (rnd.nextInt(5) == 0) null else rnd.nextInt(20).toLong)
    }

  /** Sorted runs: records dealt at random to `n` runs (overlapping), or key ranges cut apart
   *  (non-overlapping), each sorted by (key, sequence number). */
  private def split(rnd: Random, recs: Seq[Rec]): Seq[Seq[Rec]] = {
    val sorted = (r: Seq[Rec]) => r.sortBy(x => (x.k, x.seq))
    if (rnd.nextInt(4) == 0) {
      val keys = recs.map(_.k).distinct.sorted
      val cut = if (keys.isEmpty) 0 else keys(rnd.nextInt(keys.size))
      Seq(sorted(recs.filter(_.k < cut)), sorted(recs.filter(_.k >= cut)))
    } else {
      val n = 1 + rnd.nextInt(5)
      recs.groupBy(_ => rnd.nextInt(n)).values.map(sorted).toSeq
    }
  }

  private def collect(it: Iterator[KeyValue]): Map[Int, Seq[Any]] =
    it.map(kv => kv.key.getInt(0) -> values(kv.value, fields)).toMap

  private def onePass(recs: Seq[Rec], rnd: Random, mf: () => MergeFunction): Map[Int, Seq[Any]] =
    collect(SortMergeReader.merge(split(rnd, recs).map(_.iterator.map(_.kv)), intKeyOrdering, mf()))

  /** Newer records compacted first, keeping deletes, then merged with the older ones. */
  private def twoPass(recs: Seq[Rec], rnd: Random, mf: () => MergeFunction): Map[Int, Seq[Any]] = {
    val cut = rnd.nextInt(recs.size + 1)
    val (older, newer) = recs.splitAt(cut)
    val compacted = SortMergeReader.merge(split(rnd, newer).map(_.iterator.map(_.kv)), intKeyOrdering, mf(), dropDelete = false)
      .map(_.copy()).toList
    val runs = split(rnd, older).map(_.iterator.map(_.kv)) :+ compacted.iterator
    collect(SortMergeReader.merge(runs, intKeyOrdering, mf()))
  }

  private def check(name: String, options: Map[String, String], model: Model, retracts: Boolean,
      retractKinds: Seq[Byte] = Seq(RowKind.Delete, RowKind.UpdateBefore), twoPasses: Boolean = true): Unit =
    test(s"$name matches the model over random runs") {
      val rnd = new Random(name.hashCode.toLong)
      val mf = MergeFunctions.create(fields, Seq("k"), options, "db.t")
      (1 to 300).foreach { round =>
        val recs = history(rnd, rnd.nextInt(60), 1 + rnd.nextInt(8), retracts, retractKinds)
        val expected = model(recs)
        assert(onePass(recs, rnd, mf) == expected, s"round $round, one pass, history $recs")
        if (twoPasses) assert(twoPass(recs, rnd, mf) == expected, s"round $round, two passes, history $recs")
      }
    }

  private def byKey(recs: Seq[Rec]): Map[Int, Seq[Rec]] = recs.groupBy(_.k).map { case (k, rs) => k -> rs.sortBy(_.seq) }
  private def vals(r: Rec): Seq[Any] = Seq(r.k, r.a, r.b, r.s)

  private val dedupModel: Model = recs =>
    byKey(recs).flatMap { case (k, rs) =>
      val last = rs.last
      if (last.isAdd) Some(k -> vals(last)) else None
    }

  private val nullsFirst: Ordering[Any] = (x: Any, y: Any) =>
    if (x == null) { if (y == null) 0 else -1 }
    else if (y == null) 1 else java.lang.Long.compare(x.asInstanceOf[Long], y.asInstanceOf[Long])

  private val dedupSeqFieldModel: Model = recs =>
    byKey(recs).flatMap { case (k, rs) =>
      val last = rs.max(Ordering.by((r: Rec) => (r.s, r.seq))(Ordering.Tuple2(nullsFirst, Ordering.Long)))
      if (last.isAdd) Some(k -> vals(last)) else None
    }

  /** Paimon's order of a descending sequence field: NULL first, then values from the largest to the
   *  smallest; equal values by sequence number. */
  private val descendingNullsFirst: Ordering[Any] = (x: Any, y: Any) =>
    if (x == null || y == null) nullsFirst.compare(x, y) else nullsFirst.compare(y, x)

  /** `base` applied to the records as a descending sequence field orders them: each key's records
   *  renumbered in that order, so the base model's sequence-number order is the sequence field's. */
  private def descendingSeqOrder(base: Model): Model = recs =>
    base(byKey(recs).values.flatMap { rs =>
      rs.sorted(Ordering.by((r: Rec) => (r.s, r.seq))(Ordering.Tuple2(descendingNullsFirst, Ordering.Long)))
        .zip(rs.map(_.seq)).map { case (r, seq) => r.copy(seq = seq) }
    }.toSeq)

  private val firstRowModel: Model = recs => byKey(recs).flatMap { case (k, rs) => rs.find(_.isAdd).map(r => k -> vals(r)) }

  /** Partial update; a -D removes the row when `removeOnDelete`, retracts are dropped otherwise. */
  private def partialUpdateModel(removeOnDelete: Boolean): Model = recs =>
    byKey(recs).flatMap { case (k, rs) =>
      var state: Option[Array[Any]] = None
      rs.foreach { r =>
        if (r.isAdd) {
          val cur = state.getOrElse(Array[Any](k, null, null, null))
          Seq(r.a, r.b, r.s).zipWithIndex.foreach { case (v, i) => if (v != null) cur(i + 1) = v }
          state = Some(cur)
        } else if (removeOnDelete && r.kind == RowKind.Delete) state = None
      }
      state.map(s => k -> s.toSeq)
    }

  /** a: sum (retract subtracts), b: max ignoring retracts, s: last_value (retract clears). */
  private val aggregationModel: Model = recs =>
    byKey(recs).map { case (k, rs) =>
      var a: Any = null
      var b: Any = null
      var s: Any = null
      rs.foreach { r =>
        if (r.isAdd) {
          if (r.a != null) a = if (a == null) r.a else a.asInstanceOf[Int] + r.a.asInstanceOf[Int]
          if (r.b != null) b = if (b == null) r.b else math.max(b.asInstanceOf[Int], r.b.asInstanceOf[Int])
          s = r.s
        } else {
          if (r.a != null) a = if (a == null) -r.a.asInstanceOf[Int] else a.asInstanceOf[Int] - r.a.asInstanceOf[Int]
          s = null
        }
      }
      k -> Seq(k, a, b, s)
    }

  /** Sequence group s orders a; b is outside every group. */
  private val sequenceGroupModel: Model = recs =>
    byKey(recs).map { case (k, rs) =>
      var a: Any = null
      var b: Any = null
      var s: Any = null
      rs.foreach { r =>
        val advances = r.s != null && (s == null || r.s.asInstanceOf[Long] >= s.asInstanceOf[Long])
        if (r.isAdd) {
          if (r.b != null) b = r.b
          if (advances) { a = r.a; s = r.s }
        } else if (advances) { a = null; s = r.s }
      }
      k -> Seq(k, a, b, s)
    }

  check("deduplicate", Map.empty, dedupModel, retracts = true)
  check("deduplicate with ignore-delete", Map("ignore-delete" -> "true"), recs => dedupModel(recs.filter(_.isAdd)),
    retracts = true)
  check("deduplicate with sequence.field", Map("sequence.field" -> "s"), dedupSeqFieldModel, retracts = true)
  private val descending = Map("sequence.field" -> "s", "sequence.field.sort-order" -> "descending")
  check("deduplicate with descending sequence.field", descending, descendingSeqOrder(dedupModel), retracts = true)
  // a compacted merged row sorts by its own sequence value among older records (as in Paimon), so
  // merging engines match the model in one pass only
  check("partial-update with descending sequence.field", descending + ("merge-engine" -> "partial-update"),
    descendingSeqOrder(partialUpdateModel(removeOnDelete = false)), retracts = false, twoPasses = false)
  check("aggregation with descending sequence.field",
    descending ++ Map("merge-engine" -> "aggregation", "fields.a.aggregate-function" -> "sum",
      "fields.b.aggregate-function" -> "max", "fields.b.ignore-retract" -> "true", "fields.s.aggregate-function" -> "last_value"),
    descendingSeqOrder(aggregationModel), retracts = true, twoPasses = false)
  check("first-row", Map("merge-engine" -> "first-row"), firstRowModel, retracts = true)
  check("partial-update", Map("merge-engine" -> "partial-update"), partialUpdateModel(removeOnDelete = false), retracts = false)
  check("partial-update with ignore-delete", Map("merge-engine" -> "partial-update", "ignore-delete" -> "true"),
    partialUpdateModel(removeOnDelete = false), retracts = true)
  check("partial-update with remove-record-on-delete",
    Map("merge-engine" -> "partial-update", "partial-update.remove-record-on-delete" -> "true"),
    partialUpdateModel(removeOnDelete = true), retracts = true)
  check("partial-update with a sequence group", Map("merge-engine" -> "partial-update", "fields.s.sequence-group" -> "a"),
    sequenceGroupModel, retracts = true)
  check("aggregation",
    Map("merge-engine" -> "aggregation", "fields.a.aggregate-function" -> "sum",
      "fields.b.aggregate-function" -> "max", "fields.b.ignore-retract" -> "true", "fields.s.aggregate-function" -> "last_value"),
    aggregationModel, retracts = true)
}
