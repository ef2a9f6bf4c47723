package lamina.spark

import java.util.Locale

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.{FunctionIdentifier, TableIdentifier}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.parser.{CatalystSqlParser, ParserInterface}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.{DataType, StructType}

/** Keeps `CALL <catalog>.sys.<procedure>(...)` for Lamina's catalogs when another extension's parser
 *  claims every CALL statement for its own procedures (Apache Paimon's session extensions do): such
 *  a statement is parsed by Spark's own grammar into its native CALL, which asks the Lamina catalog
 *  for the procedure. Every other statement goes to the parser this one wraps. It takes effect when
 *  Lamina's extensions come after the other one in `spark.sql.extensions` (the last parser listed is
 *  asked first); `lamina.configure` appends them there. */
final class LaminaCallParser(session: SparkSession, delegate: ParserInterface) extends ParserInterface {
  private val CallOfCatalog = """(?is)^\s*call\s+`?([A-Za-z_][A-Za-z0-9_]*)`?\s*\..*""".r

  override def parsePlan(sqlText: String): LogicalPlan = sqlText match {
    case CallOfCatalog(catalog) if isLaminaCatalog(catalog) => CatalystSqlParser.parsePlan(sqlText)
    case _ => delegate.parsePlan(sqlText)
  }

  private def isLaminaCatalog(name: String): Boolean =
    session.conf.getOption(s"spark.sql.catalog.${name.toLowerCase(Locale.ROOT)}")
      .orElse(session.conf.getOption(s"spark.sql.catalog.$name"))
      .contains(classOf[LaminaCatalog].getName)

  override def parseExpression(sqlText: String): Expression = delegate.parseExpression(sqlText)
  override def parseTableIdentifier(sqlText: String): TableIdentifier = delegate.parseTableIdentifier(sqlText)
  override def parseFunctionIdentifier(sqlText: String): FunctionIdentifier = delegate.parseFunctionIdentifier(sqlText)
  override def parseMultipartIdentifier(sqlText: String): Seq[String] = delegate.parseMultipartIdentifier(sqlText)
  override def parseQuery(sqlText: String): LogicalPlan = delegate.parseQuery(sqlText)
  override def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
  override def parseTableSchema(sqlText: String): StructType = delegate.parseTableSchema(sqlText)
  override def parseDataType(sqlText: String): DataType = delegate.parseDataType(sqlText)
}
