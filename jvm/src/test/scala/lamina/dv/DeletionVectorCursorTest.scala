package lamina.dv

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/** A cursor asked positions in non-decreasing order (repeats, gaps, positions past the last deleted
 *  one) answers as `isDeleted` does, for both encodings. Seeds are fixed. */
class DeletionVectorCursorTest extends AnyFunSuite {

  private def check(make: Seq[Long] => DeletionVector, seed: Int, span: Long): Unit = {
    val rnd = new Random(seed)
    val deleted = Seq.fill(rnd.nextInt(400))(math.abs(rnd.nextLong()) % span).distinct
    val dv = make(deleted)
    val cursor = dv.ascendingCursor()
    var p = 0L
    while (p < span + 10) {
      assert(cursor.isDeleted(p) == dv.isDeleted(p), s"position $p of $deleted")
      if (rnd.nextInt(5) != 0) p += 1 + (if (rnd.nextBoolean()) rnd.nextInt(20) else 0)
    }
  }

  test("32-bit bitmaps: the cursor agrees with isDeleted") {
    (1 to 30).foreach(seed => check(BitmapDeletionVector(_), seed, span = 1 + seed * 300L))
  }

  test("64-bit bitmaps: the cursor agrees with isDeleted") {
    (1 to 30).foreach(seed => check(Bitmap64DeletionVector(_), seed, span = 1 + seed * 300L))
  }

  test("a cursor over an empty vector deletes nothing") {
    val cursor = BitmapDeletionVector(Seq.empty).ascendingCursor()
    assert(!(0L to 100L).exists(cursor.isDeleted))
  }
}
