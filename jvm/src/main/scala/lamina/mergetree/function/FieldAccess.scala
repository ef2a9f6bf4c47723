package lamina.mergetree.function

import scala.util.Try

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{Decimal => SparkDecimal}
import org.apache.spark.unsafe.types.UTF8String

import lamina.types._

/** Reads one column of a value row as a Spark internal value, null for SQL NULL. */
private[mergetree] final class FieldGetter(val index: Int, val field: DataField) {
  val sparkType: org.apache.spark.sql.types.DataType =
    Try(SparkTypes.toSpark(field.dataType)).getOrElse(org.apache.spark.sql.types.NullType)

  def get(row: InternalRow): Any = if (row.isNullAt(index)) null else row.get(index, sparkType)
}

private[mergetree] object FieldGetter {
  def all(fields: Seq[DataField]): Array[FieldGetter] =
    fields.zipWithIndex.map { case (f, i) => new FieldGetter(i, f) }.toArray
}

/** Total orders on the internal values of atomic types, SQL NULL first (as Paimon's record
 *  comparators order sequence fields). */
private[mergetree] object ValueOrdering {

  /** The ordering of `t`'s values, or None when the type has no order (arrays, maps, rows, ...). */
  def of(t: DataType): Option[Ordering[Any]] = {
    val base: Option[Ordering[Any]] = t match {
      case _: BooleanType => Some(by[Boolean])
      case _: TinyIntType => Some(by[Byte])
      case _: SmallIntType => Some(by[Short])
      case _: IntType | _: DateType | _: TimeType => Some(by[Int])
      case _: BigIntType | _: TimestampType | _: LocalZonedTimestampType => Some(by[Long])
      case _: FloatType => Some((a: Any, b: Any) => java.lang.Float.compare(a.asInstanceOf[Float], b.asInstanceOf[Float]))
      case _: DoubleType => Some((a: Any, b: Any) => java.lang.Double.compare(a.asInstanceOf[Double], b.asInstanceOf[Double]))
      case _: DecimalType => Some((a: Any, b: Any) => a.asInstanceOf[SparkDecimal].compare(b.asInstanceOf[SparkDecimal]))
      case _: CharType | _: VarCharType =>
        Some((a: Any, b: Any) => a.asInstanceOf[UTF8String].compareTo(b.asInstanceOf[UTF8String]))
      case _: BinaryType | _: VarBinaryType =>
        Some((a: Any, b: Any) => java.util.Arrays.compareUnsigned(a.asInstanceOf[Array[Byte]], b.asInstanceOf[Array[Byte]]))
      case _ => None
    }
    base.map(nullsFirst)
  }

  private def by[T](implicit o: Ordering[T]): Ordering[Any] = (a: Any, b: Any) => o.compare(a.asInstanceOf[T], b.asInstanceOf[T])

  private def nullsFirst(o: Ordering[Any]): Ordering[Any] = (a: Any, b: Any) =>
    if (a == null) { if (b == null) 0 else -1 }
    else if (b == null) 1
    else o.compare(a, b)
}
