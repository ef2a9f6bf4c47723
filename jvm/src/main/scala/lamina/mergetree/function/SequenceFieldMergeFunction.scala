package lamina.mergetree.function

import scala.collection.mutable.ArrayBuffer

import lamina.mergetree.{KeyValue, MergeFunction}

/** Applies `sequence.field`: buffers the records of one key, orders them by the sequence fields and
 *  feeds them in that order to `inner`. So the record with the larger sequence value (the smaller
 *  with `descending`, `sequence.field.sort-order`) counts as the later one whatever order it was
 *  written in. A NULL sequence value orders first in either order, and records with equal values
 *  keep their sequence-number order: Paimon's comparator of sequence fields, whose NULLs never move
 *  last, followed by the sequence number ascending. */
final class SequenceFieldMergeFunction(inner: MergeFunction, seqFields: Array[(FieldGetter, Ordering[Any])],
    descending: Boolean = false)
  extends MergeFunction {

  private val buffered = ArrayBuffer.empty[KeyValue]
  private var merged = false

  private val order: Ordering[KeyValue] = (a: KeyValue, b: KeyValue) => {
    var i = 0
    var c = 0
    while (c == 0 && i < seqFields.length) {
      val (g, o) = seqFields(i)
      val x = g.get(a.value)
      val y = g.get(b.value)
      // `o` orders NULL first; descending reverses only the order of values
      c = if (descending && x != null && y != null) o.compare(y, x) else o.compare(x, y)
      i += 1
    }
    if (c != 0) c else java.lang.Long.compare(a.sequenceNumber, b.sequenceNumber)
  }

  override def retractRefusal(kind: Byte): Option[String] = inner.retractRefusal(kind)

  override def reset(): Unit = {
    buffered.clear()
    merged = false
  }

  override def add(kv: KeyValue): Unit = buffered += kv.copy()

  private def mergeOnce(): Unit = if (!merged) {
    inner.reset()
    buffered.sorted(order).foreach(inner.add)
    merged = true
  }

  override def result(): Option[KeyValue] = { mergeOnce(); inner.result() }

  override def resultKeepingDelete(): Seq[KeyValue] = { mergeOnce(); inner.resultKeepingDelete() }
}
