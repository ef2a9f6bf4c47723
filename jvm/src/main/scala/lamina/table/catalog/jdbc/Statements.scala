package lamina.table.catalog.jdbc

import java.sql.{Connection, ResultSet}

import scala.collection.mutable.ListBuffer

/** Prepared statements with string parameters, closed after use: the only way the JDBC metastore and
 *  its lock talk to the database, so that no value is ever spliced into SQL text. */
object Statements {

  def query[T](c: Connection, sql: String, args: String*)(row: ResultSet => T): Seq[T] = {
    val s = c.prepareStatement(sql)
    try {
      args.zipWithIndex.foreach { case (a, i) => s.setString(i + 1, a) }
      val rs = s.executeQuery()
      try {
        val out = ListBuffer.empty[T]
        while (rs.next()) out += row(rs)
        out.toList
      } finally rs.close()
    } finally s.close()
  }

  /** The number of rows changed. */
  def update(c: Connection, sql: String, args: String*): Int = {
    val s = c.prepareStatement(sql)
    try {
      args.zipWithIndex.foreach { case (a, i) => s.setString(i + 1, a) }
      s.executeUpdate()
    } finally s.close()
  }
}
