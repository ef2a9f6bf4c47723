package lamina.lookup.hash

import java.io.File

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.lookup.io.LittleEndian

class SlotWindowTest extends AnyFunSuite {
  private val file = new File("/tmp/w.hash")

  /** An entry of a 4-byte key: the key, then its record offset. */
  private def entry(key: Int, offset: Long): Array[Byte] = {
    val b = new Array[Byte](12)
    LittleEndian.putInt(b, 0, key)
    LittleEndian.putLong(b, 4, offset)
    b
  }

  private def keyAt(w: SlotWindow, slot: Int): Option[Int] =
    if (LittleEndian.getLong(w.bytes, slot * 12 + 4) == 0) None else Some(LittleEndian.getInt(w.bytes, slot * 12))

  test("a key goes to the first free slot from its home (or the window's start), and past the end to nobody") {
    val w = new SlotWindow(8, 4, file)
    w.reset(100, 104)
    assert(w.insert(entry(1, 10), 0, 102))
    assert(w.insert(entry(2, 20), 0, 102))
    assert(w.insert(entry(3, 30), 0, 90)) // a home before the window: from its first slot
    assert((0 until 4).map(keyAt(w, _)) == Seq(Some(3), None, Some(1), Some(2)))
    assert(!w.insert(entry(4, 40), 0, 103)) // runs past slot 103
    assert(!w.insert(entry(5, 50), 0, 104)) // a home past the window
    assert(keyAt(w, 1).isEmpty)
    // held entries go in from the first slot on
    val held = new SlotEntries(12)
    held.add(entry(6, 60), 0)
    held.add(entry(7, 70), 0)
    assert(!w.insertAll(held)) // 6 takes slot 1, 7 finds no room
    assert(keyAt(w, 1).contains(6))
    // a reset window is empty again
    w.reset(104, 108)
    assert((0 until 4).forall(keyAt(w, _).isEmpty))
  }

  test("a window that is the whole region wraps from its last slot to its first") {
    val w = new SlotWindow(4, 4, file)
    w.reset(0, 4)
    w.insertWrapping(entry(1, 10), 0, 3)
    w.insertWrapping(entry(2, 20), 0, 3)
    w.insertWrapping(entry(3, 30), 0, 3)
    assert((0 until 4).map(keyAt(w, _)) == Seq(Some(2), Some(3), None, Some(1)))
  }

  test("a key met again on its probe is a duplicate, named with the file") {
    val w = new SlotWindow(4, 4, file)
    w.reset(0, 4)
    assert(w.insert(entry(0x01020304, 10), 0, 1))
    assert(w.insert(entry(7, 70), 0, 1))
    val e = intercept[BadInputException](w.insert(entry(0x01020304, 20), 0, 1)) // the same key has the same home
    assert(e.getMessage == s"Duplicate key 0x04030201 in hash lookup file ${file.getPath}")
  }
}
