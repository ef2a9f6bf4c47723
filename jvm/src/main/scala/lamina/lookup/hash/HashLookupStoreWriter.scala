package lamina.lookup.hash

import java.io.File

import scala.collection.mutable

import lamina.errors.BadInputException
import lamina.lookup.LookupStoreWriter
import lamina.lookup.io.{LocalFileOutput, PageChecksums, VarInt}

/** Writes a hash lookup file (format: docs/format/hash-lookup-store.md), in the manner of PalDB.
 *
 * Values stream to the data section as they arrive; keys and their record offsets stay in memory,
 * grouped by key length and, within a length, by the range of slots their hash leads to
 * ([[HashKeyBuffer]]), until `finish` writes one open-addressing slot region per key length
 * ([[SlotRegionWriter]]). Keys may come in any order; a duplicate key is rejected at `finish`.
 * Every page of `pageSize` bytes gets a CRC32C (the data section's as it streams out).
 * Invariant: every record offset held is the start of a complete record already written.
 */
final class HashLookupStoreWriter(file: File, pageSize: Int, expectedEntries: Long = 0) extends LookupStoreWriter {
  import HashLookupStoreWriter._

  private val out = new LocalFileOutput(file, checksums = new PageChecksums(pageSize))
  out.write(HashFileHeader.encode())
  private val sections = mutable.TreeMap.empty[Int, HashKeyBuffer]

  /** A record being assembled: varint and a small value. */
  private val record = new Array[Byte](VarInt.MaxBytes + SmallValue)
  private var recordCount = 0L

  /** Buffer of the previous key's length: consecutive keys usually share a length. */
  private var lastKeys: HashKeyBuffer = _
  private var finished = -1L
  private var closed = false

  override def put(key: Array[Byte], value: Array[Byte]): Unit = {
    if (closed) throw new IllegalStateException(s"Lookup file ${file.getPath} is already finished")
    if (key.length > HashSection.MaxKeyLength)
      throw new BadInputException(s"Key of ${key.length} bytes is longer than the ${HashSection.MaxKeyLength} " +
        s"bytes a hash lookup file supports (${file.getPath})")
    val offset = out.position
    val headerLen = VarInt.write(record, 0, value.length)
    if (value.length <= SmallValue) {
      System.arraycopy(value, 0, record, headerLen, value.length)
      out.write(record, 0, headerLen + value.length)
    } else {
      out.write(record, 0, headerLen)
      out.write(value)
    }
    if (lastKeys == null || lastKeys.keyLength != key.length)
      lastKeys = sections.getOrElseUpdate(key.length,
        // the first key length is usually the only one: room for the expected keys up front
        new HashKeyBuffer(key.length,
          if (sections.isEmpty) math.min(expectedEntries, MaxPresizedBytes / (key.length + 8) * 16 / 17) else 0, file,
          LoadFactor))
    lastKeys.add(key, offset)
    recordCount += 1
  }

  override def finish(): Long = {
    if (closed && finished < 0)
      throw new IllegalStateException(s"Writing lookup file ${file.getPath} failed; it is incomplete")
    if (!closed) {
      closed = true
      try {
        val dataEnd = out.position
        val dataSums = out.endChecksums()
        val written = sections.values.map(writeSection).toSeq
        out.write(HashPageChecksums.encode(Array.concat(dataSums +: written.map(_._2): _*)))
        val tableOffset = out.position
        val table = HashSection.encodeTable(written.map(_._1))
        out.write(table)
        out.write(HashFooter(tableOffset, table.length, recordCount, dataEnd, pageSize).encode())
        finished = out.position
      } finally {
        sections.clear()
        out.close()
      }
    }
    finished
  }

  /** Writes the slot region of one key length; returns its section and the checksums of its pages. */
  private def writeSection(keys: HashKeyBuffer): (HashSection, Array[Int]) = {
    val section = HashSection(keys.keyLength, keys.count, HashSection.slotCountFor(keys.count, LoadFactor), out.position)
    val at = out.reserve(section.regionLength)
    (section, new SlotRegionWriter(keys, section, at, pageSize, out, file).write())
  }
}

object HashLookupStoreWriter {

  /** Sections with at least this many keys are laid out and written by two threads. */
  val ParallelMinKeys: Int = 1 << 16

  /** Runs `a` here and `b` on a new thread at once; returns when both are done, with the first error. */
  private[hash] def inParallel(a: => Unit, b: => Unit): Unit = {
    @volatile var failure: Throwable = null
    val other = new Thread(() =>
        try b
        catch { case t: Throwable => failure = t }, "lamina-hash-lookup-writer")
    other.setDaemon(true)
    other.start()
    try a
    finally other.join()
    if (failure != null) throw failure
  }

  /** Share of slots in use; lower means shorter probes and more bytes. */
  val LoadFactor: Double = 0.75

  /** Values up to this size are copied into one buffer with their record's varint. */
  private val SmallValue = 64

  /** Most bytes of keys and offsets a writer sets aside for the expected keys before they arrive (with
   *  the slack of 1/16 each range gets). */
  private val MaxPresizedBytes = 1L << 28
}
