package lamina.spark.procedures

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.{BoundProcedure, ProcedureParameter, UnboundProcedure}
import org.apache.spark.sql.connector.read.{LocalScan, Scan}
import org.apache.spark.sql.types.{DataType, StructField, StructType}

import lamina.errors.BadInputException
import lamina.spark.{JobDescription, LaminaCatalog}
import lamina.table.catalog.Metastore

/** One `CALL <catalog>.sys.<name>(...)` procedure: its parameters (positional or named, optional ones
 *  defaulting to NULL), one call into the `lamina.api` facade, and its result rows. */
abstract class LaminaProcedure(catalog: LaminaCatalog) extends UnboundProcedure with BoundProcedure {
  override def bind(input: StructType): BoundProcedure = this
  override def isDeterministic: Boolean = false

  /** The result's columns. */
  protected def output: StructType

  protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow]

  /** Runs the procedure, the Spark jobs it starts described as `lamina: <procedure> <table>`. */
  override def call(args: InternalRow): java.util.Iterator[Scan] = {
    val arguments = new ProcedureArgs(args, parameters())
    val described = s"lamina: ${name().replace('_', ' ')}" + arguments.string("table").map(" " + _).getOrElse("")
    val result = JobDescription.during(SparkSession.active, described)(run(arguments, catalog.laminaWarehouse)).toArray
    val schema = output
    Seq[Scan](new LocalScan {
      override def rows(): Array[InternalRow] = result
      override def readSchema(): StructType = schema
    }).iterator.asJava
  }
}

object LaminaProcedure {
  def required(name: String, t: DataType): ProcedureParameter = ProcedureParameter.in(name, t).build()
  def optional(name: String, t: DataType, default: String = "NULL"): ProcedureParameter =
    ProcedureParameter.in(name, t).defaultValue(default).build()
  def columns(fields: (String, DataType)*): StructType =
    StructType(fields.map { case (n, t) => StructField(n, t, nullable = true) })
}

/** The arguments of one call, read by parameter name; a NULL where a value is needed is refused
 *  naming the argument. */
final class ProcedureArgs(row: InternalRow, params: Array[ProcedureParameter]) {
  private def index(name: String): Option[Int] = Some(params.indexWhere(_.name == name)).filter(i => i >= 0 && !row.isNullAt(i))

  def string(name: String): Option[String] = index(name).map(row.getUTF8String(_).toString)
  def long(name: String): Option[Long] = index(name).map(row.getLong)
  def int(name: String): Option[Int] = index(name).map(row.getInt)
  def boolean(name: String): Option[Boolean] = index(name).map(row.getBoolean)

  def requiredString(name: String): String = string(name).filter(_.trim.nonEmpty).getOrElse(
    throw new BadInputException(s"Argument '$name' must be given (not NULL or blank)"))
  def requiredInt(name: String): Int = int(name).getOrElse(
    throw new BadInputException(s"Argument '$name' must be given (not NULL)"))
  def requiredLong(name: String): Long = long(name).getOrElse(
    throw new BadInputException(s"Argument '$name' must be given (not NULL)"))

  /** At most one of two arguments that mean the same (Paimon's name and another). */
  def eitherLong(a: String, b: String): Option[Long] = either(a, b, long)
  def eitherString(a: String, b: String): Option[String] = either(a, b, string(_).filter(_.trim.nonEmpty))

  private def either[T](a: String, b: String, get: String => Option[T]): Option[T] = (get(a), get(b)) match {
    case (Some(_), Some(_)) => throw new BadInputException(s"Give only one of the arguments '$a' and '$b'")
    case (x, y) => x.orElse(y)
  }
}
