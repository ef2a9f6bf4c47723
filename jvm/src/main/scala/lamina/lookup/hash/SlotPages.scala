package lamina.lookup.hash

import java.nio.{ByteBuffer, ByteOrder}
import java.util.zip.CRC32C

import lamina.lookup.io.LocalFileOutput

/** The pages of one slot region being written at `regionOffset`, in runs of windows ([[Emitter]]s,
 *  possibly on several threads, each over its own slots), and their CRC32C. */
private[hash] final class SlotPages(section: HashSection, pageSize: Int, regionOffset: Long, out: LocalFileOutput) {
  import SlotPages._

  private val slotSize = section.slotSize
  private val slotCount = section.slotCount
  private val slotsPerPage = section.slotsPerPage(pageSize)
  private val pages = Math.toIntExact(section.pageCount(pageSize))
  private val sums = new Array[Int](pages)

  /** Pages whose CRC an emitter computed as it wrote them whole; the others are read back. */
  private val summed = new Array[Boolean](pages)

  /** Forgets the checksums computed so far: the region is being written again. */
  def restart(): Unit = java.util.Arrays.fill(summed, false)

  /** Writes windows of slots, one after another from slot `from`, in pieces of about [[SlotPages.ChunkBytes]]
   *  from a direct buffer, with the CRC32C of every page it writes whole. */
  final class Emitter(from: Long) {
    private val chunk = ByteBuffer.allocateDirect(ChunkBytes).order(ByteOrder.LITTLE_ENDIAN)
    private val crc = new CRC32C()

    /** Next slot to write, and slots in the chunk. */
    private var slot = from
    private var chunkSlot = from
    private var used = 0

    /** Page whose CRC is being computed (the first to start at or after `from`), bytes of it fed. */
    private var page = ((from + slotsPerPage - 1) / slotsPerPage).toInt
    private var inPage = 0

    def window(w: SlotWindow): Unit = {
      require(w.start == slot, s"window at slot ${w.start}, expected $slot")
      var off = 0
      val end = w.slots * slotSize
      while (off < end) {
        val n = math.min(end - off, ChunkBytes - used)
        chunk.put(used, w.bytes, off, n)
        used += n
        off += n
        if (used == ChunkBytes) flush()
      }
      slot += w.slots
    }

    def finish(): Unit = flush()

    private def flush(): Unit = if (used > 0) {
      // a full chunk may end inside a slot: its whole slots go now, the rest stays for the next
      val whole = used - used % slotSize
      val view = chunk.slice(0, whole)
      sumPages(view) // reads through slices of its own: `view` keeps its position for the write
      out.writeAt(regionOffset + chunkSlot * slotSize, view)
      chunkSlot += whole / slotSize
      val rest = used - whole
      if (rest > 0) chunk.put(0, chunk, whole, rest)
      used = rest
    }

    /** Feeds the page CRCs with `b`, the bytes of the slots from `chunkSlot` on. */
    private def sumPages(b: ByteBuffer): Unit = {
      var off = 0
      val end = b.limit()
      var s = chunkSlot
      while (off < end) {
        val p = (s / slotsPerPage).toInt
        val pageStart = p.toLong * slotsPerPage
        val pageLen = (math.min(slotsPerPage.toLong, slotCount - pageStart) * slotSize).toInt
        val into = ((s - pageStart) * slotSize).toInt
        val n = math.min(end - off, pageLen - into)
        if (page == p) {
          crc.update(b.slice(off, n))
          inPage += n
          if (inPage == pageLen) {
            sums(p) = crc.getValue.toInt
            summed(p) = true
            crc.reset()
            inPage = 0
            page = p + 1
          }
        }
        off += n
        s += n / slotSize
      }
    }
  }

  /** The CRC32C of each page of the region, once every slot is written: those of pages written by two
   *  emitters (where one began or ended mid-page) read back from the file. */
  def checksums(): Array[Int] = {
    var p = 0
    while (p < pages) {
      if (!summed(p)) {
        val first = p.toLong * slotsPerPage
        val length = (math.min(slotsPerPage.toLong, slotCount - first) * slotSize).toInt
        sums(p) = out.checksumAt(regionOffset + first * slotSize, length)
      }
      p += 1
    }
    sums
  }
}

private[hash] object SlotPages {

  /** Bytes of slots an emitter gathers before writing them. */
  val ChunkBytes: Int = 1 << 20
}
