package lamina.lookup.sort

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import lamina.lookup.{KeyComparator, UnsignedBytesComparator}

class BlockReaderTest extends AnyFunSuite {

  private def block(keys: Seq[Array[Byte]], comparator: KeyComparator = UnsignedBytesComparator): BlockReader = {
    val w = new BlockWriter(64)
    keys.foreach(k => w.add(k, k.reverse))
    val raw = java.util.Arrays.copyOf(w.finish(), w.finishedLength)
    new BlockReader(raw, comparator, "/block", 0)
  }

  /** Keys that defeat an 8-byte prefix: shared long prefixes, keys shorter than 8 bytes, keys that are
   *  zero-extended prefixes of others, and 0xff bytes (unsigned order). */
  private def trickyKeys(rnd: Random): IndexedSeq[Array[Byte]] = {
    val shared = Array.fill[Byte](12)(7)
    val keys = scala.collection.mutable.ArrayBuffer.empty[Array[Byte]]
    keys += Array.emptyByteArray
    keys ++= Seq(Array[Byte](1), Array[Byte](1, 0), Array[Byte](1, 0, 0), Array[Byte](1, -1), Array[Byte](-1))
    keys ++= Seq(Array.fill[Byte](8)(0), Array.fill[Byte](9)(0), Array.fill[Byte](8)(-1), Array.fill[Byte](9)(-1))
    (0 until 300).foreach { _ =>
      val suffix = new Array[Byte](rnd.nextInt(6))
      rnd.nextBytes(suffix)
      keys += shared.take(rnd.nextInt(13)) ++ suffix
    }
    keys.map(_.toSeq).distinct.map(_.toArray)
      .sortWith((a, b) => UnsignedBytesComparator.compare(a, b) < 0).toIndexedSeq
  }

  private def expectedLowerBound(keys: IndexedSeq[Array[Byte]], k: Array[Byte]): Int = {
    val i = keys.indexWhere(x => UnsignedBytesComparator.compare(x, k) >= 0)
    if (i < 0) keys.size else i
  }

  test("lower bound and find agree with a linear scan, before and after the search index is built") {
    val rnd = new Random(5)
    val keys = trickyKeys(rnd)
    val probes = keys ++ keys.map(_ :+ 0.toByte) ++ keys.filter(_.nonEmpty).map(_.init) ++
      (0 until 300).map { _ =>
        val b = new Array[Byte](rnd.nextInt(14)); rnd.nextBytes(b); b
      }
    val reader = block(keys)
    assert(reader.count == keys.size)
    // The first search runs without the index, later ones with it: run every probe three times.
    for (round <- 0 until 3; p <- probes) {
      val expected = expectedLowerBound(keys, p)
      assert(reader.lowerBound(p) == expected, s"round $round, key ${p.toSeq}")
      val found = reader.find(p)
      if (expected < keys.size && java.util.Arrays.equals(keys(expected), p)) assert(found.toSeq == p.reverse.toSeq)
      else assert(found == null)
    }
    assert(reader.derivedBytes == 8 * keys.size)
  }

  test("a custom order is searched without the prefix index") {
    val descending: KeyComparator = (a, ao, al, b, bo, bl) => -UnsignedBytesComparator.compare(a, ao, al, b, bo, bl)
    val keys = trickyKeys(new Random(6)).reverse
    val reader = block(keys, descending)
    assert(reader.derivedBytes == 0)
    for (_ <- 0 until 2; (k, i) <- keys.zipWithIndex) assert(reader.lowerBound(k) == i)
  }

  test("entries are read by index") {
    val keys = trickyKeys(new Random(7)).take(20)
    val reader = block(keys)
    keys.indices.foreach { i =>
      assert(reader.key(i).toSeq == keys(i).toSeq)
      assert(reader.value(i).toSeq == keys(i).reverse.toSeq)
    }
  }
}
