package lamina.lookup.hash

import java.io.File
import java.nio.file.Files

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.lookup.LookupTestSupport
import lamina.lookup.io.{Checksums, KeyHash, LittleEndian, LocalFileOutput}

class SlotRegionWriterTest extends AnyFunSuite with LookupTestSupport {

  private val Page = 4096

  /** Lays out `keys` (8 bytes each, record offset = 1000 + index) with windows of 2^windowBits slots;
   *  returns the region's bytes, its page checksums and whether it was laid out as one window. */
  private def layOut(keys: Seq[Array[Byte]], windowBits: Int): (HashSection, Array[Byte], Array[Int], Boolean) = {
    val (section, region, sums, writer) = layOutWith(keys, windowBits)
    (section, region, sums, writer.asOne)
  }

  /** The same, with the writer (for what it reports of how it went). */
  private def layOutWith(keys: Seq[Array[Byte]], windowBits: Int): (HashSection, Array[Byte], Array[Int], SlotRegionWriter) =
    withTempDir { dir =>
      val file = new File(dir, "slots")
      val buffer = new HashKeyBuffer(8, 0, file, HashLookupStoreWriter.LoadFactor)
      keys.zipWithIndex.foreach { case (k, i) => buffer.add(k, 1000L + i) }
      val out = new LocalFileOutput(file)
      val section = HashSection(8, keys.size, HashSection.slotCountFor(keys.size, HashLookupStoreWriter.LoadFactor), 0)
      val at = out.reserve(section.regionLength)
      val writer = new SlotRegionWriter(buffer, section, at, Page, out, file, windowBits)
      val sums = writer.write()
      out.close()
      (section, Files.readAllBytes(file.toPath), sums, writer)
    }

  /** Every key is found by linear probing from its home slot, no other slot is used, and each page's
   *  checksum is its bytes'. */
  private def checkLayout(keys: Seq[Array[Byte]], section: HashSection, region: Array[Byte], sums: Array[Int]): Unit = {
    assert(region.length == section.regionLength)
    val slotSize = section.slotSize
    keys.zipWithIndex.foreach { case (k, i) =>
      var slot = section.homeSlot(KeyHash.hash64(k))
      var probes = 0
      def slotKey(s: Long) = region.slice((s * slotSize).toInt, (s * slotSize).toInt + 8).toSeq
      def slotOffset(s: Long) = LittleEndian.getLong(region, (s * slotSize).toInt + 8)
      while (slotKey(slot) != k.toSeq) {
        assert(slotOffset(slot) != 0, s"key $i not found: empty slot $slot reached from its home")
        slot = (slot + 1) % section.slotCount
        probes += 1
        assert(probes < section.slotCount)
      }
      assert(slotOffset(slot) == 1000L + i)
    }
    val used = (0L until section.slotCount).count(s => LittleEndian.getLong(region, (s * slotSize).toInt + 8) != 0)
    assert(used == keys.size)
    val perPage = section.slotsPerPage(Page)
    sums.indices.foreach { p =>
      val from = p * perPage * slotSize
      val until = math.min(region.length, from + perPage * slotSize)
      assert(sums(p) == Checksums.crc32c(region, from, until - from), s"page $p")
    }
    assert(sums.length == section.pageCount(Page))
  }

  private def keys(seed: Long, n: Int): Seq[Array[Byte]] = {
    val rnd = new Random(seed)
    Seq.fill(n) { val k = new Array[Byte](8); rnd.nextBytes(k); k }.distinctBy(_.toSeq)
  }

  test("a small region is one window; every key reachable by linear probing, wrapping past the last slot") {
    Seq(1, 2, 3, 7, 100, 5000).foreach { n =>
      val ks = keys(n, n)
      val (section, region, sums, asOne) = layOut(ks, SlotRegionWriter.WindowBits)
      assert(asOne)
      checkLayout(ks, section, region, sums)
    }
  }

  test("large regions by halves and windows of any size, including windows too small for the keys left over") {
    val n = HashLookupStoreWriter.ParallelMinKeys + 123
    val ks = keys(5, n)
    val outcomes = Seq(0, 1, 2, 5, 9, SlotRegionWriter.WindowBits).map { bits =>
      val (section, region, sums, asOne) = layOut(ks, bits)
      checkLayout(ks, section, region, sums)
      // the same keys in the same order give the same bytes
      val again = layOut(ks, bits)
      assert(java.util.Arrays.equals(region, again._2))
      asOne
    }
    // one-slot windows cannot take the keys left over at the end of a half: laid out again as one window
    assert(outcomes.head)
    assert(!outcomes.last)
  }

  test("keys crowding into one window beyond its share of the scratch: all laid out, after the others of that window") {
    val spread = keys(7, HashLookupStoreWriter.ParallelMinKeys + 4000)
    val crowd = 200
    val slotCount = HashSection.slotCountFor(spread.size + crowd, HashLookupStoreWriter.LoadFactor)
    val probe = HashSection(8, spread.size + crowd, slotCount, 0)
    // keys whose home slots all lie in [1600, 1616): in one 512-slot window of range 0, beyond its share
    val rnd = new Random(8)
    val crowded = Iterator.continually { val k = new Array[Byte](8); rnd.nextBytes(k); k }
      .filter { k =>
        val h = probe.homeSlot(KeyHash.hash64(k)); h >= 1600 && h < 1616
      }
      .take(crowd).toSeq
    val all = (spread ++ crowded).distinctBy(_.toSeq)
    assert(all.size == spread.size + crowd)
    val (section, region, sums, writer) = layOutWith(all, windowBits = 9)
    assert(section.slotCount == slotCount)
    assert(writer.overflowCount > 0 && !writer.asOne)
    checkLayout(all, section, region, sums)
  }

  test("a duplicate key is rejected, in halves or as one window") {
    Seq(0, SlotRegionWriter.WindowBits).foreach { bits =>
      val ks = keys(6, HashLookupStoreWriter.ParallelMinKeys + 10)
      val e = intercept[BadInputException](layOut(ks :+ ks(4321).clone(), bits))
      assert(e.getMessage.startsWith("Duplicate key 0x"))
    }
  }
}
