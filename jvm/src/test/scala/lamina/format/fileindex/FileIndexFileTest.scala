package lamina.format.fileindex

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.types.{IntType, VarCharType}

/** The file-index container and its bloom filters, against bytes Apache Paimon's own code wrote
 *  (`golden/fileindex/paimon-bloom.index`, written by `PaimonBloomIndex.java.txt` beside it with Paimon
 *  1.4.2's jar: int column `id` holding 7, 14, ..., 140 and string column `name` holding apple, banana,
 *  cherry and 日本, each bloom filter sized for 100 items at fpp 0.01). */
class FileIndexFileTest extends AnyFunSuite {
  private def golden: Array[Byte] =
    getClass.getClassLoader.getResourceAsStream("golden/fileindex/paimon-bloom.index").readAllBytes()

  private val ids = (1 to 20).map(_ * 7)
  private val names = Seq("apple", "banana", "cherry", "日本")

  private def laminaIndex: Array[Byte] = {
    val spec = FileIndexSpec(Seq(FileIndexSpec.BloomColumn("id", 0, IntType(), 100, 0.01),
        FileIndexSpec.BloomColumn("name", 1, VarCharType(VarCharType.MaxLength), 100, 0.01)), 500)
    val w = spec.newWriter()
    ids.zipAll(names, 0, null).foreach { case (i, n) =>
      w.update(InternalRow(if (i == 0) null else i, if (n == null) null else UTF8String.fromString(n)))
    }
    w.result()._1
  }

  test("Lamina encodes the same values into the bytes Paimon wrote, byte for byte") {
    assert(laminaIndex.toSeq === golden.toSeq)
  }

  test("Paimon's file index decodes; its bloom filters hold every value written and prove others absent") {
    val file = FileIndexFile.decode("paimon-bloom.index", golden)
    assert(file.entries.keySet === Set("id", "name"))
    val id = BloomFilterIndex.decode(file.source, "id", file.index("id", BloomFilterIndex.IndexType).get.get)
    val name = BloomFilterIndex.decode(file.source, "name", file.index("name", BloomFilterIndex.IndexType).get.get)
    val intHash = FastHash.of(IntType()).get
    val strHash = FastHash.of(VarCharType(10)).get
    assert(ids.forall(i => id.mightContain(intHash(i))))
    assert(names.forall(n => name.mightContain(strHash(UTF8String.fromString(n)))))
    // fpp 0.01: of 200 absent values, at most a few pass
    assert((1000 until 1200).count(i => id.mightContain(intHash(i))) <= 8)
    assert((0 until 200).count(i => name.mightContain(strHash(UTF8String.fromString(s"x$i")))) <= 8)
    assert(file.index("id", "bitmap") === None && file.index("other", BloomFilterIndex.IndexType) === None)
  }

  test("sizes follow Paimon's formula; an empty index round-trips") {
    val f = BloomFilterIndex.create(100, 0.01)
    // nb = (int)(100 * ln 100 / ln(2)^2) = 958, rounded up to 960 bits; k = round(9.6 * ln 2) = 7
    assert(f.numHashFunctions === 7 && f.encode().length === 4 + 120)
    val bytes = FileIndexFile.encode(Seq("c" -> Seq("bloom-filter" -> None, "x" -> Some(Array[Byte](1, 2)))))
    val back = FileIndexFile.decode("t", bytes)
    assert(back.index("c", "bloom-filter") === Some(None))
    assert(back.index("c", "x").get.get.toSeq === Seq[Byte](1, 2))
  }

  test("a corrupt file index is a CorruptFileException naming it, at every truncation and flipped header byte") {
    val good = golden
    val headLen = java.nio.ByteBuffer.wrap(good, 12, 4).getInt()
    val magic = intercept[CorruptFileException](FileIndexFile.decode("/t/b/f.index", good.updated(0, 9.toByte)))
    assert(magic.getMessage === "Corrupt file /t/b/f.index at offset 0: expected file index magic 1493475289347502, " +
      s"found ${java.nio.ByteBuffer.wrap(good.updated(0, 9.toByte)).getLong()} (file index)")
    (0 until headLen).foreach { n =>
      val e = intercept[CorruptFileException](FileIndexFile.decode("/t/b/f.index", good.take(n)))
      assert(e.path === "/t/b/f.index")
    }
    // every flipped header byte is detected or leaves a header that still names slices within the file
    (0 until headLen).foreach { i =>
      val bad = good.updated(i, (good(i) ^ 0x40).toByte)
      try {
        val f = FileIndexFile.decode("/t/b/f.index", bad)
        f.entries.values.flatMap(_.values).foreach(s => assert(s.offset == -1 || s.offset + s.length <= bad.length))
      } catch { case e: CorruptFileException => assert(e.path === "/t/b/f.index") }
    }
    val noHashes = intercept[CorruptFileException](BloomFilterIndex.decode("/t/b/f.index", "id", Array[Byte](0, 0, 0, 0, 1)))
    assert(noHashes.getMessage === "Corrupt file /t/b/f.index: expected 1 to 64 hash functions, found 0 " +
      "(bloom filter of column id)")
  }
}
