package lamina.format.fileindex

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.UTF8String
import org.roaringbitmap.RoaringBitmap
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.types.{BigIntType, DoubleType, IntType, TimestampType, VarCharType}

/** Bitmap indexes in the file-index container, against bytes Apache Paimon's own code wrote
 *  (`golden/fileindex/paimon-bitmap.index`, written by `PaimonBitmapIndex.java.txt` beside it with Paimon
 *  1.4.2's jar: 20 rows of an int column `id` and a string column `name` at version 2, the default, and
 *  of `old`, the same ints at version 1, and of `blocks`, the same ints in index blocks of 32 bytes). */
class BitmapIndexTest extends AnyFunSuite {
  private def golden: Array[Byte] =
    getClass.getClassLoader.getResourceAsStream("golden/fileindex/paimon-bitmap.index").readAllBytes()

  // the generator's rows
  private def id(i: Int): Any = if (i == 3 || i == 7) null else if (i == 19) 100 else i % 5
  private def name(i: Int): Any =
    if (i == 5) null else UTF8String.fromString(if (i == 18) "x" else Seq("apple", "banana", "cherry", "日本")(i % 4))
  private val ints = BitmapKey.of(IntType()).get
  private val strings = BitmapKey.of(VarCharType(VarCharType.MaxLength)).get

  private def laminaIndex: Array[Byte] = {
    val spec = FileIndexSpec(Nil, 500,
      Seq(FileIndexSpec.BitmapColumn("id", 0, IntType()),
        FileIndexSpec.BitmapColumn("name", 1, VarCharType(VarCharType.MaxLength)),
        FileIndexSpec.BitmapColumn("old", 0, IntType(), version = BitmapIndex.Version1),
        FileIndexSpec.BitmapColumn("blocks", 0, IntType(), blockSize = 32)))
    val w = spec.newWriter()
    (0 until 20).foreach(i => w.update(InternalRow(id(i), name(i))))
    w.result()._1
  }

  private def rows(b: BitmapIndex, key: AnyRef): Seq[Int] = b.rows(key).toArray.toSeq

  test("Lamina encodes the same values into the bytes Paimon wrote, byte for byte, at versions 2 and 1") {
    assert(laminaIndex.toSeq === golden.toSeq)
  }

  test("Paimon's bitmap indexes decode to the rows of each value and of NULL") {
    val file = FileIndexFile.decode("paimon-bitmap.index", golden)
    for (column <- Seq("id", "old", "blocks")) {
      val b = BitmapIndex.decode(file.source, column, ints, file.index(column, BitmapIndex.IndexType).get.get)
      assert(b.rowCount === 20)
      (0 until 5).foreach(v => assert(rows(b, Int.box(v)) === (0 until 19).filter(i => id(i) == v), (column, v)))
      assert(rows(b, Int.box(100)) === Seq(19) && rows(b, null) === Seq(3, 7) && rows(b, Int.box(5)) === Nil)
    }
    val n = BitmapIndex.decode(file.source, "name", strings, file.index("name", BitmapIndex.IndexType).get.get)
    assert(rows(n, UTF8String.fromString("日本")) === Seq(3, 7, 11, 15, 19))
    assert(rows(n, UTF8String.fromString("x")) === Seq(18) && rows(n, null) === Seq(5))
    assert(rows(n, UTF8String.fromString("apple")) === Seq(0, 4, 8, 12, 16) && rows(n, UTF8String.fromString("z")) === Nil)
  }

  test("round trip: many values across small index blocks, singletons, all-NULL and no-NULL columns") {
    for (version <- Seq(BitmapIndex.Version1, BitmapIndex.Version2); blockSize <- Seq(1L, 64L, BitmapIndex.DefaultBlockSize)) {
      val values: Seq[Any] = (0 until 500).map(i => if (i % 13 == 0) null else (i % 97).toLong * 1000003L)
      val w = new BitmapIndex.Writer(BitmapKey.of(BigIntType()).get, version, blockSize)
      values.foreach(w.add)
      val b = BitmapIndex.decode("t", "c", BitmapKey.of(BigIntType()).get, w.encode())
      assert(b.rowCount === 500)
      values.distinct.foreach(v => assert(rows(b, v.asInstanceOf[AnyRef]) === values.indices.filter(values(_) == v)))
    }
    val allNull = new BitmapIndex.Writer(ints, BitmapIndex.Version2, BitmapIndex.DefaultBlockSize)
    (0 until 3).foreach(_ => allNull.add(null))
    assert(rows(BitmapIndex.decode("t", "c", ints, allNull.encode()), null) === Seq(0, 1, 2))
    val ts = BitmapKey.of(TimestampType(3)).get
    val t = new BitmapIndex.Writer(ts, BitmapIndex.Version2, BitmapIndex.DefaultBlockSize)
    Seq(1000L, 1999L, 2000L).foreach(t.add) // epoch microseconds, keyed by milliseconds
    assert(rows(BitmapIndex.decode("t", "c", ts, t.encode()), Long.box(1L)) === Seq(0, 1))
    val d = new BitmapIndex.Writer(BitmapKey.of(DoubleType()).get, BitmapIndex.Version2, BitmapIndex.DefaultBlockSize)
    Seq(-0.0, 0.0, Double.NaN).foreach(d.add)
    val back = BitmapIndex.decode("t", "c", BitmapKey.of(DoubleType()).get, d.encode())
    assert(rows(back, Double.box(-0.0)) === Seq(0) && rows(back, Double.box(Double.NaN)) === Seq(2))
  }

  test("a corrupt bitmap index is a CorruptFileException naming the file, at every truncation and flipped byte") {
    val file = FileIndexFile.decode("paimon-bitmap.index", golden)
    for ((column, keys) <- Seq("id" -> ints, "name" -> strings, "old" -> ints, "blocks" -> ints)) {
      val good = file.index(column, BitmapIndex.IndexType).get.get
      val expected = BitmapIndex.decode("/t/b/f.index", column, keys, good)
      (0 until good.length).foreach { n =>
        try {
          // a prefix may still parse (a V1 index's last bitmap has no length): never with other rows
          val b = BitmapIndex.decode("/t/b/f.index", column, keys, good.take(n))
          assert(b.rowCount === expected.rowCount, (column, n))
        } catch { case e: CorruptFileException => assert(e.path === "/t/b/f.index" && e.getMessage.contains(column)) }
      }
      // a flipped byte is reported, or changes rows only within the row count (what no format can catch)
      (0 until good.length).foreach { i =>
        val bad = good.updated(i, (good(i) ^ 0x21).toByte)
        try {
          val b = BitmapIndex.decode("/t/b/f.index", column, keys, bad)
          assert(b.rows(null).toArray.forall(r => r >= 0 && r < b.rowCount))
        } catch { case e: CorruptFileException => assert(e.path === "/t/b/f.index") }
      }
    }
    val future = intercept[CorruptFileException](BitmapIndex.decode("/t/b/f.index", "id", ints, Array[Byte](3, 0, 0, 0, 0)))
    assert(future.getMessage === "Corrupt file /t/b/f.index at offset 0: expected bitmap index version 1 or 2, found 3 " +
      "(bitmap index of column id)")
    val pastEnd = new BitmapIndex.Writer(ints, BitmapIndex.Version2, BitmapIndex.DefaultBlockSize)
    (0 until 3).foreach(_ => pastEnd.add(7))
    val bytes = pastEnd.encode()
    bytes(4) = 2 // row count 3 -> 2: the bitmap names row 2
    val e = intercept[CorruptFileException](BitmapIndex.decode("/t/b/f.index", "id", ints, bytes))
    assert(e.getMessage.contains("expected rows below 2, found row 2"), e.getMessage)
  }

  test("RoaringBitmap is the one Paimon serializes: an empty bitmap is 8 bytes") {
    val b = new RoaringBitmap()
    assert(b.serializedSizeInBytes() === 8)
  }
}
