package lamina.spark.read

import org.apache.spark.sql.connector.expressions.{Literal, NamedReference}
import org.apache.spark.sql.connector.expressions.filter.{Predicate => V2Predicate}
import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.sources.{And, EqualTo, Filter, GreaterThanOrEqual, In, LessThanOrEqual, Or}
import org.apache.spark.sql.types.{ByteType, DataType, IntegerType, LongType, ShortType, StructType}

import lamina.mergetree.KeyRange
import lamina.table.scan.KeySet

/** A scan's filters on key columns as [[KeySet]]s: its pushed filters, and the runtime filters Spark
 *  hands it ([[org.apache.spark.sql.connector.read.SupportsRuntimeV2Filtering]]). Only `c IN (v, ...)`
 *  and `c = v` of a top-level column with literals of the column's type count; anything else is
 *  ignored, since these filters may only narrow what is read. */
object RuntimeKeyFilters {

  /** The key sets of a scan's pushed filters that name a column of `columns` equal to literals
   *  (`c = v`, `c IN (...)`), the literals converted to Spark's internal values of the column's type. */
  def ofFilters(filters: Seq[Filter], schema: StructType, columns: Set[String]): Seq[KeySet] = filters.flatMap {
    case EqualTo(c, v) => Some((c, Seq(v)))
    case In(c, vs) => Some((c, vs.toSeq))
    case _ => None
  }.flatMap { case (c, values) =>
    schema.fields.find(_.name == c).filter(f => columns.contains(f.name) && KeySet.supports(f.dataType)).flatMap { f =>
      val convert = CatalystTypeConverters.createToCatalystConverter(f.dataType)
      val internal =
        try Some(values.map(v => if (v == null) null else convert(v)))
        catch { case _: Exception => None }
      internal.filter(_.forall(v => v == null || KeySet.holdsValueOf(f.dataType, v)))
        .map(vs => new KeySet(f.name, f.dataType, vs.toArray))
    }
  }

  def keySet(p: V2Predicate, schema: StructType): Option[KeySet] =
    if (p.name() != "IN" && p.name() != "=") None
    else
      p.children().toSeq match {
        case (ref: NamedReference) +: literals if ref.fieldNames().length == 1 && literals.nonEmpty =>
          val name = ref.fieldNames()(0)
          schema.fields.find(_.name == name).orElse(schema.fields.find(_.name.equalsIgnoreCase(name)))
            .filter(f => KeySet.supports(f.dataType)).flatMap { f =>
              val values = literals.collect { case l: Literal[_] if l.dataType == f.dataType => l.value: Any }
              if (values.size != literals.size) None else Some(new KeySet(f.name, f.dataType, values.toArray))
            }
        case _ => None
      }

  /** `column BETWEEN lower AND upper` for any of `ranges`, as a filter the file readers skip row groups
   *  and pages by; None for a type whose literals are not integral numbers (dates, timestamps) or no
   *  ranges. The ranges' bounds must be values of the column's type. */
  def ofRanges(column: String, dataType: DataType, ranges: Seq[KeyRange]): Option[Filter] = {
    val literal: Option[Long => Any] = dataType match {
      case LongType => Some(v => v)
      case IntegerType => Some(_.toInt)
      case ShortType => Some(_.toShort)
      case ByteType => Some(_.toByte)
      case _ => None
    }
    // a balanced tree of ORs: its depth is the log of the ranges' number
    def any(rs: Seq[Filter]): Filter =
      if (rs.size == 1) rs.head else { val (a, b) = rs.splitAt(rs.size / 2); Or(any(a), any(b)) }
    literal.filter(_ => ranges.nonEmpty).map { lit =>
      any(ranges.map { r =>
        if (r.lower == r.upper) EqualTo(column, lit(r.lower))
        else And(GreaterThanOrEqual(column, lit(r.lower)), LessThanOrEqual(column, lit(r.upper)))
      })
    }
  }
}
