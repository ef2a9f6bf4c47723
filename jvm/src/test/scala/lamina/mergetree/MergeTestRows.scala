package lamina.mergetree

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.unsafe.types.UTF8String

import lamina.mergetree.function.FieldGetter
import lamina.types._

/** Builders for merge-tree tests: rows of Scala values (strings become UTF8String) and records. */
object MergeTestRows {
  def row(values: Any*): InternalRow = new GenericInternalRow(values.map {
    case s: String => UTF8String.fromString(s)
    case v => v
  }.toArray)

  /** Scala values of a row, UTF8String back to String, for assertions. */
  def values(r: InternalRow, fields: Seq[DataField]): Seq[Any] = {
    val getters = FieldGetter.all(fields)
    getters.toSeq.map(g =>
      g.get(r) match {
        case s: UTF8String => s.toString
        case v => v
      })
  }

  /** Orders rows by their first column, an INT. */
  val intKeyOrdering: Ordering[InternalRow] = (a: InternalRow, b: InternalRow) => Integer.compare(a.getInt(0), b.getInt(0))

  /** A record whose key is the first column of `value`. */
  def kv(seq: Long, kind: String, value: InternalRow): KeyValue =
    new KeyValue(row(value.getInt(0)), seq, RowKind.fromShortString(kind), value)

  def field(id: Int, name: String, t: DataType): DataField = DataField(id, name, t)

  /** Up to `maxRuns` runs of ascending, unique INT keys (a range of up to `maxSpan` keys from
   *  [-100, `maxStart` - 100), with random gaps), values "v<seq>", sequence numbers increasing across
   *  runs; `deleteOdds()` is asked once per run for the 1-in-n chance of a delete (0: none). */
  def randomUniqueRuns(rnd: scala.util.Random, maxRuns: Int, maxStart: Int, maxSpan: Int,
      deleteOdds: () => Int): IndexedSeq[IndexedSeq[KeyValue]] = {
    var seq = 0L
    (1 to rnd.nextInt(maxRuns) + 1).map { _ =>
      val lo = rnd.nextInt(maxStart) - 100
      val span = rnd.nextInt(maxSpan)
      val density = rnd.nextInt(3) + 1
      val odds = deleteOdds()
      (lo until lo + span).filter(_ => rnd.nextInt(density) == 0).map { key =>
        seq += 1
        kv(seq, if (odds > 0 && rnd.nextInt(odds) == 0) "-D" else "+I", row(key, s"v$seq"))
      }
    }
  }
}
