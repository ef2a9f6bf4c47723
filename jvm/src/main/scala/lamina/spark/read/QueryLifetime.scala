package lamina.spark.read

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.SQLExecution

/** Whether the Spark SQL execution that planned a scan still runs, for the scan's snapshot lease: the
 *  driver thread's execution id and Spark's registry of running executions, which forgets an execution
 *  as soon as it returns (the one use of `SQLExecution`, isolated here; Spark's listener events about
 *  an execution's end arrive asynchronously, too late for an expiration that follows the query). */
object QueryLifetime {

  /** A check that holds while the execution planning now runs; always true outside an execution
   *  (EXPLAIN, plans computed before running), where the scan's own lifetime decides. */
  def current(spark: SparkSession): () => Boolean =
    Option(spark.sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY)).flatMap(_.toLongOption) match {
      case Some(id) => () => SQLExecution.getQueryExecution(id) != null
      case None => () => true
    }
}
