package lamina.mergetree.function

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.{ArrayData, GenericArrayData}

import lamina.types.{DataType, RowType}

/** The rows of nested-table values (ARRAY<ROW>), copied out of their arrays, and their keys: the
 *  values of `keyFields`, or the whole row without key fields. */
private[mergetree] abstract class NestedTableAgg(element: RowType, keyFields: Seq[Int]) extends FieldAggregator {
  protected val width: Int = element.fields.size
  private val wholeRow = new ValueKey(element)
  private val keyParts = keyFields.map(i => i -> new ValueKey(element.fields(i).dataType))

  protected def keyOf(r: InternalRow): Any =
    if (keyFields.isEmpty) wholeRow(r)
    else keyParts.map { case (i, k) => if (r.isNullAt(i)) null else k(r.get(i, k.sparkDataType)) }

  /** The non-NULL rows of an array. */
  protected def rows(v: Any): Iterator[InternalRow] = {
    val a = v.asInstanceOf[ArrayData]
    Iterator.range(0, a.numElements()).filterNot(a.isNullAt).map(a.getStruct(_, width).copy())
  }

  protected def array(rs: Iterable[InternalRow]): ArrayData = new GenericArrayData(rs.toArray[Any])
}

/** nested_update: an ARRAY<ROW> column that holds a nested table. Adding an array appends its non-NULL
 *  rows, at most `countLimit` rows in all (once the accumulator holds that many, input is dropped);
 *  with key fields (`fields.<f>.nested-key`), a row replaces the row of the same key. Retracting an
 *  array removes the rows of its keys, or without key fields the rows equal to one of its rows.
 *  A NULL side gives the other side unchanged, so the first array is kept as it is. */
private[mergetree] final class NestedUpdateAgg(element: RowType, keyFields: Seq[Int], countLimit: Int)
  extends NestedTableAgg(element, keyFields) {
  val name = AggregateFunction.NestedUpdate.name

  /** The rows by key, a later row of a key taking the place of the earlier. */
  private def byKey(rs: Iterator[InternalRow]): mutable.LinkedHashMap[Any, InternalRow] = {
    val m = mutable.LinkedHashMap.empty[Any, InternalRow]
    rs.foreach(r => m.put(keyOf(r), r))
    m
  }

  def agg(acc: Any, input: Any): Any =
    if (acc == null) input
    else if (input == null) acc
    else {
      val held = acc.asInstanceOf[ArrayData].numElements()
      if (held >= countLimit) acc
      else {
        val all = rows(acc) ++ rows(input).take(countLimit - held)
        array(if (keyFields.isEmpty) all.toSeq else byKey(all).values)
      }
    }

  override def supportsRetract = true
  override def retract(acc: Any, input: Any): Any =
    if (acc == null || input == null) acc
    else {
      val gone = rows(input).map(keyOf).toSet
      if (keyFields.isEmpty) array(rows(acc).filterNot(r => gone(keyOf(r))).toSeq)
      else array(byKey(rows(acc)).filterNot(e => gone(e._1)).values)
    }
}

/** nested_partial_update: like nested_update with key fields (which it needs), but a row updates the
 *  row of its key field by field: its non-NULL fields overwrite, its NULL fields leave the held values.
 *  No count limit, no retraction. A NULL side gives the other side unchanged. */
private[mergetree] final class NestedPartialUpdateAgg(element: RowType, keyFields: Seq[Int])
  extends NestedTableAgg(element, keyFields) {
  require(keyFields.nonEmpty, "nested_partial_update needs key fields")
  val name = AggregateFunction.NestedPartialUpdate.name
  private val types = element.fields.map(f => new ValueKey(f.dataType).sparkDataType).toArray

  def agg(acc: Any, input: Any): Any =
    if (acc == null) input
    else if (input == null) acc
    else {
      val merged = mutable.LinkedHashMap.empty[Any, Array[Any]]
      (rows(acc) ++ rows(input)).foreach { r =>
        val held = merged.getOrElseUpdate(keyOf(r), new Array[Any](width))
        var i = 0
        while (i < width) {
          if (!r.isNullAt(i)) held(i) = r.get(i, types(i))
          i += 1
        }
      }
      array(merged.values.map(new GenericInternalRow(_)))
    }
}

/** merge_map_with_keytime: a MAP<K, ROW> whose rows carry a time as text in field `timeField`. Per key,
 *  an input row replaces the held one when the held one is missing, NULL or has a NULL time, or when
 *  the input's time is greater (as Java compares strings); an input row with a NULL time is skipped, and
 *  a NULL input value removes its key. A NULL side gives the other side unchanged. No retraction. */
private[mergetree] final class MergeMapWithKeyTimeAgg(keyType: DataType, value: RowType, timeField: Int) extends FieldAggregator {
  val name = AggregateFunction.MergeMapWithKeyTime.name
  private val entries = new MapEntries(keyType, value)
  import entries.{build, keyOf}

  private def time(r: InternalRow): String = r.getUTF8String(timeField).toString

  def agg(acc: Any, input: Any): Any =
    if (acc == null) input
    else if (input == null) acc
    else {
      val merged = mutable.LinkedHashMap.empty[Any, (Any, Any)]
      entries(acc).foreach { case (k, v) => merged.put(keyOf(k), (k, v)) }
      entries(input).foreach {
        case (k, null) => merged.remove(keyOf(k))
        case (k, row: InternalRow) if !row.isNullAt(timeField) =>
          merged.get(keyOf(k)).map(_._2) match {
            case Some(held: InternalRow) if !held.isNullAt(timeField) && time(row).compareTo(time(held)) <= 0 =>
            case _ => merged.put(keyOf(k), (k, row))
          }
        case _ =>
      }
      build(merged.values)
    }
}
