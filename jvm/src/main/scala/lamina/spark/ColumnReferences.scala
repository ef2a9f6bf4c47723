package lamina.spark

import org.apache.spark.sql.connector.expressions.{Expressions, NamedReference, Transform}

/** References to columns by their name as it is: Spark's `Expressions.column`, `identity` and
 *  `bucket` parse a name as a dotted SQL identifier, which fails on a column named `my part` or `a/b`
 *  and would split `a.b` into a nested field; each name is handed over quoted. */
object ColumnReferences {
  def column(name: String): NamedReference = Expressions.column(quoted(name))

  def identity(name: String): Transform = Expressions.identity(quoted(name))

  def bucket(numBuckets: Int, columns: Seq[String]): Transform = Expressions.bucket(numBuckets, columns.map(quoted): _*)

  private def quoted(name: String): String = "`" + name.replace("`", "``") + "`"
}
