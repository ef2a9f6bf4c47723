package lamina.spark

import org.apache.spark.sql.{Column, DataFrame, SparkSession}

/** What the Python package's `LaminaTable` calls through py4j on a classic session. Everything else
 *  it does is SQL, procedures and DataFrame reads, which a Spark Connect session runs as well. */
object TableApi {

  /** `column` as SQL text for a DELETE, UPDATE or MERGE of `table` (a quoted multi-part name): resolved
   *  against the table under `alias` (null: its own name) and, for a merge, crossed with `source` under
   *  `sourceAlias` (both null otherwise). `argument` names the Column in errors. */
  def columnSql(spark: SparkSession, table: String, alias: String, source: DataFrame, sourceAlias: String,
      column: Column, argument: String): String = {
    val target = if (alias == null) spark.table(table) else spark.table(table).as(alias)
    val plan = if (source == null) target else target.crossJoin(source.as(sourceAlias))
    ColumnSql.of(plan, column, argument)
  }
}
