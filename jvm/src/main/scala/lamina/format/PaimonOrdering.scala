package lamina.format

import lamina.types._
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String

/** Paimon's natural order of atomic values, on Spark internal values: numbers numerically, FLOAT and
 *  DOUBLE by Java's total order (-0.0 < 0.0, NaN above +Infinity), false < true, strings by their UTF-8
 *  bytes unsigned (then length), binaries by bytes unsigned (then length), timestamps by microseconds. */
object PaimonOrdering {

  /** True when `t` has a natural order here; nested, VARIANT and BLOB types do not. */
  def isOrdered(t: DataType): Boolean = t match {
    case _: ArrayType | _: MapType | _: RowType | _: MultisetType | _: VariantType | _: BlobType => false
    case _ => true
  }

  /** Compares two non-null values of type `t`. */
  def compare(t: DataType, a: Any, b: Any): Int = t match {
    case _: BooleanType => java.lang.Boolean.compare(a.asInstanceOf[Boolean], b.asInstanceOf[Boolean])
    case _: TinyIntType => java.lang.Byte.compare(a.asInstanceOf[Byte], b.asInstanceOf[Byte])
    case _: SmallIntType => java.lang.Short.compare(a.asInstanceOf[Short], b.asInstanceOf[Short])
    case _: IntType | _: DateType | _: TimeType => Integer.compare(a.asInstanceOf[Int], b.asInstanceOf[Int])
    case _: BigIntType | _: TimestampType | _: LocalZonedTimestampType =>
      java.lang.Long.compare(a.asInstanceOf[Long], b.asInstanceOf[Long])
    case _: FloatType => java.lang.Float.compare(a.asInstanceOf[Float], b.asInstanceOf[Float])
    case _: DoubleType => java.lang.Double.compare(a.asInstanceOf[Double], b.asInstanceOf[Double])
    case _: DecimalType => a.asInstanceOf[Decimal].compare(b.asInstanceOf[Decimal])
    case _: CharType | _: VarCharType => a.asInstanceOf[UTF8String].binaryCompare(b.asInstanceOf[UTF8String])
    case _: BinaryType | _: VarBinaryType =>
      java.util.Arrays.compareUnsigned(a.asInstanceOf[Array[Byte]], b.asInstanceOf[Array[Byte]])
    case other => throw new UnsupportedOperationException(s"Type ${other.asSQLString} has no natural order")
  }
}
