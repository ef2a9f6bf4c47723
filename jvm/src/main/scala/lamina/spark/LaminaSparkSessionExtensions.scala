package lamina.spark

import org.apache.spark.sql.SparkSessionExtensions

/** Session extensions of Lamina (`spark.sql.extensions=lamina.spark.LaminaSparkSessionExtensions`;
 *  `lamina.configure` sets it): the analysis-time refusal of row-level DML that a primary-key
 *  table's merge engine cannot honour ([[DmlAnalysisCheck]]), and the planning of a MERGE INTO that
 *  upserts its source, deletes its keys or applies a change set as a write of the source alone ([[MergeIntoAsWrite]]),
 *  errors naming table and column for a NULL written into a NOT NULL column ([[NotNullColumnCheck]]),
 *  `ANALYZE TABLE` of Lamina tables ([[LaminaAnalyzeTable]]), and
 *  `CALL` of Lamina's procedures beside other extensions that claim every CALL ([[LaminaCallParser]]). The catalog works
 *  without them; the writers then refuse such statements once their first row arrives, and every
 *  MERGE joins the table with its source. Adds no SQL syntax. */
class LaminaSparkSessionExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    extensions.injectResolutionRule(session => new DmlAnalysisCheck(session))
    extensions.injectResolutionRule(_ => new MergeIntoAsWrite)
    extensions.injectResolutionRule(_ => new LaminaAnalyzeTable)
    // after resolution (before the optimizer folds a VALUES list) and again in the optimizer (after
    // row-level DML was rewritten into writes)
    extensions.injectPostHocResolutionRule(_ => new NotNullColumnCheck)
    extensions.injectOptimizerRule(_ => new NotNullColumnCheck)
    extensions.injectPreCBORule(_ => new MergeKeyFilter)
    extensions.injectParser((session, delegate) => new LaminaCallParser(session, delegate))
  }
}
