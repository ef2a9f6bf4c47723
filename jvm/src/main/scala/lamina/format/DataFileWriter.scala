package lamina.format

import org.apache.spark.sql.catalyst.InternalRow

/** One data file being written: rows in, then closed. The Spark adapter implements it over Spark's
 *  file-format writers, so that the engine never sees Spark's execution internals. */
trait DataFileWriter {
  def write(row: InternalRow): Unit
  def close(): Unit

  /** The bytes the file would hold if closed now (written and buffered, encoded and compressed), or
   *  -1 where the format's writer cannot tell. */
  def length: Long = -1L
}
