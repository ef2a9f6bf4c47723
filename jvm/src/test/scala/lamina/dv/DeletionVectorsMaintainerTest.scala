package lamina.dv

import org.roaringbitmap.longlong.Roaring64Bitmap
import org.scalatest.funsuite.AnyFunSuite

class DeletionVectorsMaintainerTest extends AnyFunSuite {

  test("a position is deleted once; the snapshot's positions count as deleted") {
    val m = new DeletionVectorsMaintainer(Map("a" -> BitmapDeletionVector(Seq(1L, 5L))), bitmap64 = false)
    assert(m.isDeleted("a", 5) && !m.isDeleted("a", 2) && !m.isDeleted("b", 0))
    assert(!m.delete("a", 5))
    assert(m.delete("a", 2) && !m.delete("a", 2))
    assert(m.delete("b", 0))
    assert(m.deletedCount("a") === 3 && m.deletedCount("b") === 1 && m.deletedCount("c") === 0)
    assert(m.newlyDeleted === Map("a" -> Seq(2L), "b" -> Seq(0L)))
    assert(intercept[IllegalArgumentException](m.delete("a", -1)).getMessage.contains("of a must be at least 0"))
  }

  test("vectors: the snapshot's plus the new positions, by file name, without removed files") {
    val old = BitmapDeletionVector(Seq(1L))
    val m = new DeletionVectorsMaintainer(Map("a" -> old, "c" -> BitmapDeletionVector(Seq(7L))), bitmap64 = false)
    assert(!m.changed)
    assert(m.vectors === Seq("a" -> old, "c" -> BitmapDeletionVector(Seq(7L))))
    m.delete("b", 3)
    m.delete("a", 4)
    m.removeFile("c")
    assert(m.changed)
    assert(m.vectors === Seq("a" -> BitmapDeletionVector(Seq(1L, 4L)), "b" -> BitmapDeletionVector(Seq(3L))))
  }

  test("removing a file that had no vector changes nothing; the 64-bit option re-encodes every vector") {
    val m = new DeletionVectorsMaintainer(Map("a" -> BitmapDeletionVector(Seq(1L))), bitmap64 = false)
    m.removeFile("z")
    assert(!m.changed)
    val wide = new DeletionVectorsMaintainer(Map("a" -> BitmapDeletionVector(Seq(1L))), bitmap64 = true)
    wide.delete("b", 1L << 33)
    assert(wide.vectors === Seq("a" -> Bitmap64DeletionVector(Seq(1L)), "b" -> Bitmap64DeletionVector(Seq(1L << 33))))
    assert(wide.vectors.map(_._2.positions.toList) === Seq(List(1L), List(1L << 33)))
  }

  test("deleteAll adds a bitmap's positions, those deleted already counted once") {
    val m = new DeletionVectorsMaintainer(Map("a" -> BitmapDeletionVector(Seq(1L))), bitmap64 = false)
    val b = new Roaring64Bitmap()
    Seq(1L, 2L, 9L).foreach(b.addLong)
    m.deleteAll("a", b)
    assert(m.deletedCount("a") === 3 && m.newlyDeleted === Map("a" -> Seq(2L, 9L)))
    assert(m.vectors === Seq("a" -> BitmapDeletionVector(Seq(1L, 2L, 9L))))
  }
}
