package lamina.spark

import org.apache.spark.sql.catalyst.analysis.{ResolvedProcedure, ResolvedTable}
import org.apache.spark.sql.catalyst.plans.logical.{AnalyzeColumn, AnalyzeTable, Call, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.connector.catalog.Identifier

import lamina.errors.BadInputException

/** `ANALYZE TABLE t COMPUTE STATISTICS [NOSCAN | FOR COLUMNS c, ... | FOR ALL COLUMNS]` on a Lamina
 *  table, which Spark refuses for connector tables: this rule (a session extension) replaces the
 *  statement with a `CALL` of [[AnalyzeTableCall]], a procedure made for the statement (not one of
 *  the catalog's `sys` procedures), which Spark runs as it runs any CALL. */
class LaminaAnalyzeTable extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperators {
    case AnalyzeTable(ResolvedTable(catalog: LaminaCatalog, ident, t: LaminaTable, _), partitionSpec, noScan) =>
      if (partitionSpec.nonEmpty)
        throw new BadInputException(s"ANALYZE TABLE ${t.name()} PARTITION (...): Lamina records statistics of the " +
          "whole table only; leave out the PARTITION clause")
      call(catalog, ident,
        new AnalyzeTableCall(catalog, t.table, catalog.name() +: ident.namespace() :+ ident.name(),
          None, allColumns = false, noScan))
    case AnalyzeColumn(ResolvedTable(catalog: LaminaCatalog, ident, t: LaminaTable, _), columns, allColumns) =>
      call(catalog, ident,
        new AnalyzeTableCall(catalog, t.table, catalog.name() +: ident.namespace() :+ ident.name(),
          columns, allColumns, noScan = false))
  }

  private def call(catalog: LaminaCatalog, ident: Identifier, procedure: AnalyzeTableCall): LogicalPlan =
    Call(ResolvedProcedure(catalog, ident, procedure), Nil)
}
