package lamina.format

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/** When a data file being written has reached its target size, so that its writer rolls to the next
 *  file. The size is the one the file would have if closed now, as the format's writer reports it
 *  ([[DataFileWriter.length]]: bytes written plus pages buffered, encoded and compressed). The rows'
 *  in-memory size bounds it from above (encoding and compression only shrink a row), so the writer
 *  is first asked once the rows' in-memory size reaches the target, and then every
 *  [[TargetSizeCheck.AskEvery]] rows, since the question costs a walk over the columns. A writer
 *  that cannot tell leaves the in-memory size to decide, which makes files smaller than the target. */
final class TargetSizeCheck(target: Long, columns: Int) {
  private var inMemory = 0L
  private var untilAsked = 0

  /** Starts counting a new file. */
  def reset(): Unit = { inMemory = 0; untilAsked = 0 }

  /** Counts `row`, just written to `writer`; true when the file has reached the target. */
  def reached(writer: DataFileWriter, row: InternalRow): Boolean = {
    inMemory += (row match {
      case u: UnsafeRow => u.getSizeInBytes
      case _ => 8L * columns
    })
    inMemory >= target && {
      untilAsked -= 1
      untilAsked <= 0 && {
        untilAsked = TargetSizeCheck.AskEvery
        val length = writer.length
        length < 0 || length >= target
      }
    }
  }
}

object TargetSizeCheck {
  val AskEvery = 1000
}
