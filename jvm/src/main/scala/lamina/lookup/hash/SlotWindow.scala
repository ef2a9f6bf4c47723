package lamina.lookup.hash

import java.io.File

import lamina.errors.BadInputException
import lamina.lookup.io.LittleEndian

/** Slots [start, start + slots) of a slot region being filled by linear probing, in an array (empty
 *  slots all zero): keys of `keyLength` bytes with their record offsets. */
private[hash] final class SlotWindow(capacity: Int, keyLength: Int, file: File) {
  private val len = keyLength

  /** A slot, and an entry handed in (key and record offset), are the same bytes. */
  private val slotSize = HashSection.slotSize(keyLength)
  private val entryBytes = slotSize
  val bytes = new Array[Byte](Math.multiplyExact(capacity, slotSize))
  var start = 0L
  var slots = 0

  def reset(from: Long, until: Long): Unit = {
    start = from
    slots = Math.toIntExact(until - from)
    require(slots <= capacity, s"window of $slots slots")
    java.util.Arrays.fill(bytes, 0, slots * slotSize, 0.toByte)
  }

  /** Places the key of the entry at b[at] from slot max(home, start) on; false, with nothing
   *  written, when its probe runs past the window's end. */
  def insert(b: Array[Byte], at: Int, home: Long): Boolean = {
    var i = math.max(0L, home - start)
    while (i < slots) {
      if (tryPlace(b, at, i.toInt)) return true
      i += 1
    }
    false
  }

  /** Places the key of the entry at b[at] from slot `home` on, wrapping from the last slot to the
   *  first (the window is the whole region, which always has a free slot). */
  def insertWrapping(b: Array[Byte], at: Int, home: Long): Unit = {
    var i = home.toInt
    while (!tryPlace(b, at, i)) i = if (i + 1 == slots) 0 else i + 1
  }

  /** Inserts the held entries in order, each from the window's first slot on; false when one runs
   *  past the window's end. */
  def insertAll(entries: SlotEntries): Boolean = {
    var j = 0
    while (j < entries.count) {
      if (!insert(entries.bytes, j * entryBytes, start)) return false
      j += 1
    }
    true
  }

  private def tryPlace(b: Array[Byte], at: Int, i: Int): Boolean = {
    val p = i * slotSize
    if (LittleEndian.getLong(bytes, p + len) == 0) {
      HashKeyBuffer.copyEntry(b, at, bytes, p, entryBytes)
      true
    } else {
      if (java.util.Arrays.equals(bytes, p, p + len, b, at, at + len))
        throw new BadInputException(s"Duplicate key ${HashKeyBuffer.hex(b, at, len)} in hash lookup file ${file.getPath}")
      false
    }
  }
}

/** Entries (key and record offset) of `entryBytes` each, in the order added. */
private[hash] final class SlotEntries(entryBytes: Int) {
  var bytes = new Array[Byte](entryBytes * 16)
  var count = 0

  def add(b: Array[Byte], at: Int): Unit = {
    if ((count + 1) * entryBytes > bytes.length) bytes = java.util.Arrays.copyOf(bytes, bytes.length * 2)
    System.arraycopy(b, at, bytes, count * entryBytes, entryBytes)
    count += 1
  }

  def clear(): Unit = count = 0
}
