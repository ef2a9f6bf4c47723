package lamina.mergetree.function

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, ArrayData, GenericArrayData, MapData}
import org.apache.spark.sql.types.{Decimal => SparkDecimal}
import org.apache.spark.unsafe.types.UTF8String

import lamina.errors.BadInputException
import lamina.types._

/** One column's aggregate function. Values are Spark internal values, null for SQL NULL, and are
 *  never mutated: results are new values or one of the arguments.
 *  Invariant: `agg` and `retract` depend only on their arguments and on what was fed since [[reset]]. */
private[mergetree] abstract class FieldAggregator {
  def name: String

  /** Called when a new key starts. */
  def reset(): Unit = ()

  /** Folds an added value into the accumulator. */
  def agg(acc: Any, input: Any): Any

  /** Folds in a value that is older than the accumulator (sequence groups of partial-update). */
  def aggReversed(acc: Any, input: Any): Any = agg(input, acc)

  def supportsRetract: Boolean = false

  /** Withdraws a value (a -U or -D record). */
  def retract(acc: Any, input: Any): Any =
    throw new UnsupportedOperationException(s"aggregate function '$name' does not support retraction")

  /** Withdraws a value older than the accumulator (sequence groups): the same as [[retract]] for
   *  functions that do not depend on order; the "last" functions keep their newer value. */
  def retractReversed(acc: Any, input: Any): Any = retract(acc, input)
}

/** The aggregate functions Paimon defines that Lamina implements, their types and options. */
private[mergetree] object FieldAggregator {

  /** Builds `function` for column `field`; unknown functions and unsupported types fail naming the
   *  table, the column and the option. */
  def create(
      function: String,
      field: DataField,
      options: Map[String, String],
      table: String,
      optionKey: String = ""): FieldAggregator = {
    val key = if (optionKey.nonEmpty) optionKey else s"fields.${field.name}.aggregate-function"
    val t = field.dataType
    val fn = function.trim.toLowerCase
    import AggregateFunction._
    def typeError(expected: String) = new BadInputException(
      s"Table $table: aggregate function '$fn' of column '${field.name}' (option '$key') " +
        s"does not support type ${t.asSQLString}; it needs $expected")
    def numeric: Arith = Arith.of(t).getOrElse(throw typeError("a numeric type"))
    val parsed = AggregateFunction.parse(fn).getOrElse(throw new BadInputException(
        s"Table $table: unknown aggregate function '$fn' for column '${field.name}' " +
          s"(option '$key'); supported: ${AggregateFunction.All.mkString(", ")}"))
    parsed match {
      case Sum => new SumAgg(numeric)
      case Product => new ProductAgg(numeric)
      case Min | Max =>
        val ord = t match {
          case _: BooleanType | _: BinaryType | _: VarBinaryType => None
          case _ => ValueOrdering.of(t)
        }
        new MinMaxAgg(fn, ord.getOrElse(throw typeError("a numeric, string, date or time type")), parsed == Max)
      case LastValue => new LastValueAgg
      case LastNonNullValue => new LastNonNullValueAgg
      case FirstValue => new FirstValueAgg
      case FirstNonNullValue => new FirstNonNullValueAgg
      case BoolAnd | BoolOr =>
        if (!t.isInstanceOf[BooleanType]) throw typeError("BOOLEAN")
        new BoolAgg(fn, parsed == BoolAnd)
      case ListAgg =>
        t match {
          case _: VarCharType | _: CharType =>
          case _ => throw typeError("a string type")
        }
        val delimiter = options.getOrElse(s"fields.${field.name}.list-agg-delimiter", ",")
        new ListAggAgg(UTF8String.fromString(delimiter), distinct(field, options, table))
      case Collect =>
        t match {
          case ArrayType(element, _) => new CollectAgg(element, distinct(field, options, table))
          case _ => throw typeError("an ARRAY type")
        }
      case MergeMap =>
        t match {
          case MapType(k, v, _) => new MergeMapAgg(k, v)
          case _ => throw typeError("a MAP type")
        }
      case MergeMapWithKeyTime =>
        t match {
          case MapType(k, v: RowType, _) if v.fields.size >= 2 =>
            val setting = s"fields.${field.name}.ts-field"
            val timeField = options.get(setting) match {
              case None => v.fields.size - 1
              case Some(name) => nestedField(v, name.trim, setting, field, table)
            }
            v.fields(timeField).dataType match {
              case _: VarCharType | _: CharType => new MergeMapWithKeyTimeAgg(k, v, timeField)
              case other => throw new BadInputException(s"Table $table: aggregate function '$fn' of column " +
                  s"'${field.name}' compares the times of field '${v.fields(timeField).name}' as strings, but it has " +
                  s"type ${other.asSQLString}")
            }
          case _ => throw typeError("a MAP type whose values are ROWs of at least two fields")
        }
      case NestedUpdate | NestedPartialUpdate =>
        t match {
          case ArrayType(row: RowType, _) =>
            val keySetting = s"fields.${field.name}.nested-key"
            val keys = options.get(keySetting).toSeq.flatMap(_.split(",").map(_.trim))
              .map(nestedField(row, _, keySetting, field, table))
            if (parsed == NestedPartialUpdate) {
              if (keys.isEmpty) throw new BadInputException(s"Table $table: aggregate function '$fn' of column " +
                s"'${field.name}' needs option '$keySetting', the fields that key the rows")
              new NestedPartialUpdateAgg(row, keys)
            } else {
              val limitSetting = s"fields.${field.name}.count-limit"
              val limit = options.get(limitSetting).map(v =>
                v.trim.toIntOption.getOrElse(throw new BadInputException(
                    s"Table $table: invalid value '$v' for option '$limitSetting': expected an integer"))).getOrElse(Int.MaxValue)
              new NestedUpdateAgg(row, keys, limit)
            }
          case _ => throw typeError("an ARRAY<ROW> type")
        }
      case RoaringBitmap32 | RoaringBitmap64 | HllSketch | ThetaSketch =>
        if (!t.isInstanceOf[VarBinaryType]) throw typeError("BYTES (VARBINARY)")
        parsed match {
          case RoaringBitmap32 => new RoaringBitmap32Agg
          case RoaringBitmap64 => new RoaringBitmap64Agg
          case HllSketch => new HllSketchAgg
          case _ => new ThetaSketchAgg
        }
    }
  }

  /** The index of field `name` of the nested row that option `setting` of column `field` names. */
  private def nestedField(row: RowType, name: String, setting: String, field: DataField, table: String): Int = {
    val i = row.fieldNames.indexOf(name)
    if (i < 0) throw new BadInputException(s"Table $table: option '$setting' names field '$name', which the rows of " +
      s"column '${field.name}' do not have; they have ${row.fieldNames.mkString(", ")}")
    i
  }

  private def distinct(field: DataField, options: Map[String, String], table: String): Boolean = {
    val key = s"fields.${field.name}.distinct"
    options.get(key).map(_.trim.toLowerCase) match {
      case None | Some("false") => false
      case Some("true") => true
      case Some(v) => throw new BadInputException(s"Table $table: invalid value '$v' for option '$key': expected true or false")
    }
  }
}

/** Arithmetic on the internal values of one numeric type; integer types wrap on overflow as in
 *  Paimon, decimals that no longer fit the column's precision become NULL. */
private[mergetree] abstract class Arith {
  def plus(a: Any, b: Any): Any
  def minus(a: Any, b: Any): Any
  def negate(a: Any): Any
  def times(a: Any, b: Any): Any

  /** NULL when dividing an exact type by zero. */
  def div(a: Any, b: Any): Any
}

private[mergetree] object Arith {
  def of(t: DataType): Option[Arith] = t match {
    case _: TinyIntType => Some(integral(v => v.asInstanceOf[Byte].toLong, l => l.toByte))
    case _: SmallIntType => Some(integral(v => v.asInstanceOf[Short].toLong, l => l.toShort))
    case _: IntType => Some(integral(v => v.asInstanceOf[Int].toLong, l => l.toInt))
    case _: BigIntType => Some(integral(v => v.asInstanceOf[Long], l => l))
    case _: FloatType => Some(floating(v => v.asInstanceOf[Float].toDouble, d => d.toFloat))
    case _: DoubleType => Some(floating(v => v.asInstanceOf[Double], d => d))
    case d: DecimalType => Some(decimal(d.precision, d.scale))
    case _ => None
  }

  private def integral(in: Any => Long, out: Long => Any): Arith = new Arith {
    def plus(a: Any, b: Any): Any = out(in(a) + in(b))
    def minus(a: Any, b: Any): Any = out(in(a) - in(b))
    def negate(a: Any): Any = out(-in(a))
    def times(a: Any, b: Any): Any = out(in(a) * in(b))
    def div(a: Any, b: Any): Any = if (in(b) == 0) null else out(in(a) / in(b))
  }

  private def floating(in: Any => Double, out: Double => Any): Arith = new Arith {
    def plus(a: Any, b: Any): Any = out(in(a) + in(b))
    def minus(a: Any, b: Any): Any = out(in(a) - in(b))
    def negate(a: Any): Any = out(-in(a))
    def times(a: Any, b: Any): Any = out(in(a) * in(b))
    def div(a: Any, b: Any): Any = out(in(a) / in(b))
  }

  private def decimal(precision: Int, scale: Int): Arith = new Arith {
    private def fit(bd: java.math.BigDecimal): Any = {
      val d = SparkDecimal(bd.setScale(scale, java.math.RoundingMode.HALF_UP))
      if (d.changePrecision(precision, scale)) d else null
    }
    private def bd(v: Any) = v.asInstanceOf[SparkDecimal].toJavaBigDecimal
    def plus(a: Any, b: Any): Any = fit(bd(a).add(bd(b)))
    def minus(a: Any, b: Any): Any = fit(bd(a).subtract(bd(b)))
    def negate(a: Any): Any = fit(bd(a).negate())
    def times(a: Any, b: Any): Any = fit(bd(a).multiply(bd(b)))
    def div(a: Any, b: Any): Any =
      if (bd(b).signum == 0) null else fit(bd(a).divide(bd(b), scale, java.math.RoundingMode.HALF_UP))
  }
}

/** sum: NULLs are skipped; retract subtracts (from NULL: the negated value). */
private[mergetree] final class SumAgg(arith: Arith) extends FieldAggregator {
  val name = "sum"
  def agg(acc: Any, input: Any): Any =
    if (acc == null) input else if (input == null) acc else arith.plus(acc, input)
  override def supportsRetract = true
  override def retract(acc: Any, input: Any): Any =
    if (input == null) acc else if (acc == null) arith.negate(input) else arith.minus(acc, input)
}

/** product: NULLs are skipped; retract divides (NULL accumulator stays NULL; an exact division by
 *  zero gives NULL). */
private[mergetree] final class ProductAgg(arith: Arith) extends FieldAggregator {
  val name = "product"
  def agg(acc: Any, input: Any): Any =
    if (acc == null) input else if (input == null) acc else arith.times(acc, input)
  override def supportsRetract = true
  override def retract(acc: Any, input: Any): Any =
    if (input == null || acc == null) acc else arith.div(acc, input)
}

/** min and max: NULLs are skipped. */
private[mergetree] final class MinMaxAgg(val name: String, ord: Ordering[Any], max: Boolean) extends FieldAggregator {
  def agg(acc: Any, input: Any): Any =
    if (acc == null) input
    else if (input == null) acc
    else {
      val c = ord.compare(input, acc)
      if (if (max) c > 0 else c < 0) input else acc
    }
}

/** last_value: the latest value, NULL included; retract clears it. */
private[mergetree] final class LastValueAgg extends FieldAggregator {
  val name = "last_value"
  def agg(acc: Any, input: Any): Any = input
  override def aggReversed(acc: Any, input: Any): Any = acc
  override def supportsRetract = true
  override def retract(acc: Any, input: Any): Any = null
  override def retractReversed(acc: Any, input: Any): Any = acc
}

/** last_non_null_value: the latest non-NULL value; retracting a non-NULL value clears it. */
private[mergetree] final class LastNonNullValueAgg extends FieldAggregator {
  val name = AggregateFunction.LastNonNullValue.name
  def agg(acc: Any, input: Any): Any = if (input == null) acc else input
  override def supportsRetract = true
  override def retract(acc: Any, input: Any): Any = if (input == null) acc else null
  override def retractReversed(acc: Any, input: Any): Any = acc
}

/** first_value: the first value fed since reset, NULL included. */
private[mergetree] final class FirstValueAgg extends FieldAggregator {
  val name = "first_value"
  private var initialized = false
  override def reset(): Unit = initialized = false
  def agg(acc: Any, input: Any): Any =
    if (initialized) acc else { initialized = true; input }
  override def aggReversed(acc: Any, input: Any): Any = input
}

/** first_non_null_value: the first non-NULL value. */
private[mergetree] final class FirstNonNullValueAgg extends FieldAggregator {
  val name = "first_non_null_value"
  def agg(acc: Any, input: Any): Any = if (acc == null) input else acc
}

/** bool_and and bool_or: NULLs are skipped. */
private[mergetree] final class BoolAgg(val name: String, and: Boolean) extends FieldAggregator {
  def agg(acc: Any, input: Any): Any =
    if (acc == null) input
    else if (input == null) acc
    else if (and) acc.asInstanceOf[Boolean] && input.asInstanceOf[Boolean]
    else acc.asInstanceOf[Boolean] || input.asInstanceOf[Boolean]
}

/** listagg: joins non-NULL strings with the delimiter; with distinct, a delimited item already in the
 *  accumulator is not added again. */
private[mergetree] final class ListAggAgg(delimiter: UTF8String, distinct: Boolean) extends FieldAggregator {
  val name = "listagg"
  private val delim = delimiter.toString
  def agg(acc: Any, input: Any): Any =
    if (acc == null) input
    else if (input == null) acc
    else if (!distinct) UTF8String.concat(acc.asInstanceOf[UTF8String], delimiter, input.asInstanceOf[UTF8String])
    else {
      val seen = mutable.LinkedHashSet.empty[String]
      val accText = acc.toString
      if (accText.nonEmpty) seen ++= accText.split(java.util.regex.Pattern.quote(delim), -1)
      val before = seen.size
      input.toString.split(java.util.regex.Pattern.quote(delim), -1).foreach(seen += _)
      if (seen.size == before) acc else UTF8String.fromString(seen.mkString(delim))
    }
}

/** Equality of internal values, including nested ones and binaries, through a comparable key. */
private[mergetree] final class ValueKey(t: DataType) {
  private val sparkType = scala.util.Try(SparkTypes.toSpark(t)).getOrElse(org.apache.spark.sql.types.NullType)
  private val nested: Seq[ValueKey] = t match {
    case ArrayType(e, _) => Seq(new ValueKey(e))
    case MapType(k, v, _) => Seq(new ValueKey(k), new ValueKey(v))
    case MultisetType(e, _) => Seq(new ValueKey(e), new ValueKey(IntType()))
    case RowType(fs, _) => fs.map(f => new ValueKey(f.dataType))
    case _ => Nil
  }

  def sparkDataType: org.apache.spark.sql.types.DataType = sparkType

  def apply(v: Any): Any = v match {
    case null => null
    case b: Array[Byte] => b.toSeq
    case a: ArrayData =>
      (0 until a.numElements()).map(i => if (a.isNullAt(i)) null else nested.head(a.get(i, nested.head.sparkDataType)))
    case m: MapData =>
      val k = m.keyArray(); val vs = m.valueArray()
      (0 until m.numElements()).map { i =>
        (nested.head(k.get(i, nested.head.sparkDataType)),
          if (vs.isNullAt(i)) null else nested(1)(vs.get(i, nested(1).sparkDataType)))
      }
    case r: InternalRow =>
      nested.indices.map(i => if (r.isNullAt(i)) null else nested(i)(r.get(i, nested(i).sparkDataType)))
    case other => other
  }
}

/** collect: concatenates the elements of the input arrays (with distinct, each element once);
 *  retract removes every element equal to one of the retracted array. */
private[mergetree] final class CollectAgg(element: DataType, distinct: Boolean) extends FieldAggregator {
  val name = "collect"
  private val key = new ValueKey(element)
  private val elementType = key.sparkDataType

  private def elements(v: Any): Iterator[Any] = {
    val a = v.asInstanceOf[ArrayData]
    Iterator.range(0, a.numElements()).map(i => if (a.isNullAt(i)) null else InternalRow.copyValue(a.get(i, elementType)))
  }

  def agg(acc: Any, input: Any): Any =
    if (acc == null && input == null) null
    else if (!distinct && (acc == null || input == null)) if (acc == null) input else acc
    else {
      val out = mutable.ArrayBuffer.empty[Any]
      val seen = mutable.HashSet.empty[Any]
      Seq(acc, input).filter(_ != null).foreach(v =>
        elements(v).foreach { e =>
          if (!distinct || seen.add(key(e))) out += e
        })
      new GenericArrayData(out.toArray)
    }

  override def supportsRetract = true
  override def retract(acc: Any, input: Any): Any =
    if (acc == null || input == null) acc
    else {
      val removed = elements(input).map(key.apply).toSet
      new GenericArrayData(elements(acc).filterNot(e => removed.contains(key(e))).toArray)
    }
}

/** The entries of map values of one type, copied out of their map, and maps built from entries. */
private[mergetree] final class MapEntries(keyType: DataType, valueType: DataType) {
  val keyOf = new ValueKey(keyType)
  private val vType = new ValueKey(valueType).sparkDataType

  def apply(v: Any): Iterator[(Any, Any)] = {
    val m = v.asInstanceOf[MapData]
    val ks = m.keyArray(); val vs = m.valueArray()
    Iterator.range(0, m.numElements()).map { i =>
      (InternalRow.copyValue(ks.get(i, keyOf.sparkDataType)),
        if (vs.isNullAt(i)) null else InternalRow.copyValue(vs.get(i, vType)))
    }
  }

  def build(kvs: Iterable[(Any, Any)]): MapData =
    new ArrayBasedMapData(new GenericArrayData(kvs.map(_._1).toArray), new GenericArrayData(kvs.map(_._2).toArray))
}

/** merge_map: union of the maps, the later value winning per key; retract removes the retracted
 *  map's keys. */
private[mergetree] final class MergeMapAgg(keyType: DataType, valueType: DataType) extends FieldAggregator {
  val name = "merge_map"
  private val entries = new MapEntries(keyType, valueType)
  import entries.{build, keyOf}

  def agg(acc: Any, input: Any): Any =
    if (acc == null) input
    else if (input == null) acc
    else {
      val merged = mutable.LinkedHashMap.empty[Any, (Any, Any)]
      (entries(acc) ++ entries(input)).foreach { case (k, v) => merged.put(keyOf(k), (k, v)) }
      build(merged.values)
    }

  override def supportsRetract = true
  override def retract(acc: Any, input: Any): Any =
    if (acc == null || input == null) acc
    else {
      val removed = entries(input).map(e => keyOf(e._1)).toSet
      build(entries(acc).filterNot(e => removed.contains(keyOf(e._1))).toSeq)
    }
}
