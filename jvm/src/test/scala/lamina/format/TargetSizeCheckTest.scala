package lamina.format

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.types.{DataType, LongType}
import org.scalatest.funsuite.AnyFunSuite

class TargetSizeCheckTest extends AnyFunSuite {

  /** A writer whose file grows by `perRow` bytes a row, or that cannot tell its length. */
  private final class Sized(perRow: Long, tells: Boolean = true) extends DataFileWriter {
    var rows = 0L
    var asked = 0
    override def write(row: InternalRow): Unit = rows += 1
    override def close(): Unit = ()
    override def length: Long = { asked += 1; if (tells) rows * perRow else -1L }
  }

  // an UnsafeRow of one long: 16 bytes in memory
  private val row = UnsafeProjection.create(Array[DataType](LongType)).apply(InternalRow(1L)).copy()

  private def rowsUntilReached(check: TargetSizeCheck, w: Sized): Long = {
    var n = 0L
    var done = false
    while (!done) { w.write(row); n += 1; done = check.reached(w, row) }
    n
  }

  test("a file reaches the target by the bytes its writer reports, asked every 1000 rows once the rows' size is there") {
    val w = new Sized(perRow = 2)
    val check = new TargetSizeCheck(target = 3000, columns = 1)
    // 16 bytes a row in memory: first asked at row 188 (2 bytes a row written: 376), then every 1000 rows
    assert(rowsUntilReached(check, w) == 2188)
    assert(w.asked == 3)
    check.reset()
    val again = new Sized(perRow = 2)
    assert(rowsUntilReached(check, again) == 2188)
  }

  test("a writer that reports the target reached at the first question rolls there") {
    val w = new Sized(perRow = 100)
    assert(rowsUntilReached(new TargetSizeCheck(target = 1600, columns = 1), w) == 100)
    assert(w.asked == 1)
  }

  test("a writer that cannot tell its length leaves the rows' in-memory size to decide") {
    val w = new Sized(perRow = 0, tells = false)
    assert(rowsUntilReached(new TargetSizeCheck(target = 1600, columns = 1), w) == 100)
  }
}
