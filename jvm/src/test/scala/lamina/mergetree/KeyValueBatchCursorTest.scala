package lamina.mergetree

import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}
import org.scalatest.funsuite.AnyFunSuite

class KeyValueBatchCursorTest extends AnyFunSuite {

  // layout [_KEY_id, _SEQUENCE_NUMBER, _VALUE_KIND, id, v]; the table is (id, v)
  private val types = Seq(LongType, LongType, ByteType, LongType, LongType)
  private val vectors = types.map(t => new OnHeapColumnVector(4, t))
  private val batch = new ColumnarBatch(vectors.map(v => v: ColumnVector).toArray)

  /** Refills the one batch object, as Spark's vectorized reader does. */
  private def fill(rows: Seq[(Long, Byte)]): ColumnarBatch = {
    vectors.foreach(_.reset())
    rows.zipWithIndex.foreach { case ((k, kind), i) =>
      vectors(0).putLong(i, k); vectors(1).putLong(i, k); vectors(2).putByte(i, kind)
      vectors(3).putLong(i, k); vectors(4).putLong(i, k * 10)
    }
    batch.setNumRows(rows.size)
    batch
  }

  test("blocks are the batches, and whether a block holds only adds is asked of each batch anew") {
    val contents = Seq(
      Seq(1L -> RowKind.Insert, 2L -> RowKind.Insert),
      Seq(3L -> RowKind.Insert, 4L -> RowKind.Delete),
      Seq(5L -> RowKind.UpdateAfter))
    val batches = contents.iterator.map(fill)
    val cursor = new KeyValueBatchCursor(Iterator(() => FileBatches(batches, Array(0, 1, 2, 3, 4))), 1,
      StructType(Seq(StructField("id", LongType))), StructType(Seq(StructField("id", LongType), StructField("v", LongType))),
      Array(0, 4), KeyOrder.longKeyOf(Seq(LongType)))
    val seen = scala.collection.mutable.ArrayBuffer.empty[(Long, Boolean, Long)]
    assert(cursor.advance())
    var more = true
    while (more) {
      assert(cursor.atBlockStart)
      seen += ((cursor.keyAsLong, cursor.blockAllAdds, cursor.blockLastKeyAsLong))
      assert(cursor.currentBatch.numRows() == contents(seen.size - 1).size)
      more = cursor.skipBlock()
    }
    assert(seen.toSeq == Seq((1L, true, 2L), (3L, false, 4L), (5L, true, 5L)))
  }

  test("records read through the views: key, sequence number, kind and value columns") {
    val batches = Iterator(fill(Seq(7L -> RowKind.Insert, 8L -> RowKind.Delete)))
    val cursor = new KeyValueBatchCursor(Iterator(() => FileBatches(batches, Array(0, 1, 2, 3, 4))), 1,
      StructType(Seq(StructField("id", LongType))), StructType(Seq(StructField("id", LongType), StructField("v", LongType))),
      Array(0, 4), KeyOrder.longKeyOf(Seq(LongType)))
    val got = Iterator.continually(cursor.advance()).takeWhile(identity).map { _ =>
      val kv = cursor.current
      (kv.key.getLong(0), kv.sequenceNumber, kv.valueKind, kv.value.getLong(0), kv.value.getLong(1), cursor.atBlockStart)
    }.toList
    assert(got == List((7L, 7L, RowKind.Insert, 7L, 70L, true), (8L, 8L, RowKind.Delete, 8L, 80L, false)))
  }

  test("a file read without its sequence number column gives every record the run's number") {
    // the same batch, but the layout says the sequence number is not among its columns
    val batches = Iterator(fill(Seq(7L -> RowKind.Delete, 8L -> RowKind.UpdateAfter)))
    val cursor = new KeyValueBatchCursor(Iterator(() => FileBatches(batches, Array(0, -1, 2, 3, 4), 41L)), 1,
      StructType(Seq(StructField("id", LongType))), StructType(Seq(StructField("id", LongType), StructField("v", LongType))),
      Array(0, 4), KeyOrder.longKeyOf(Seq(LongType)))
    assert(cursor.advance())
    assert(!cursor.blockAllAdds)
    val got = (cursor.current.sequenceNumber, cursor.current.valueKind, cursor.current.value.getLong(1)) ::
      Iterator.continually(cursor.advance()).takeWhile(identity).map { _ =>
        (cursor.current.sequenceNumber, cursor.current.valueKind, cursor.current.value.getLong(1))
      }.toList
    assert(got == List((41L, RowKind.Delete, 70L), (41L, RowKind.UpdateAfter, 80L)))
  }

  private def rangedCursor(contents: Seq[Seq[Long]], range: KeyRange, opened: () => Unit = () => (),
      chosen: Option[LongKeys] = None) = {
    val files = contents.iterator.map { keys => () =>
      opened()
      FileBatches(keys.grouped(4).map(g => fill(g.map(_ -> RowKind.Insert))), Array(0, 1, 2, 3, 4))
    }
    new KeyValueBatchCursor(files, 1, StructType(Seq(StructField("id", LongType))),
      StructType(Seq(StructField("id", LongType), StructField("v", LongType))), Array(0, 4),
      KeyOrder.longKeyOf(Seq(LongType)), Some(range), chosen)
  }

  private def keys(c: KeyValueBatchCursor): List[Long] =
    Iterator.continually(c.advance()).takeWhile(identity).map(_ => c.keyAsLong).toList

  test("a key range yields the run's keys inside it, and no file after the first key above it is opened") {
    // a run of three files, each read in batches of four
    val run = Seq(Seq(1L, 3, 5, 7, 9, 11), Seq(13L, 15, 17, 19), Seq(21L, 23))
    var opened = 0
    val c = rangedCursor(run, KeyRange(6, 14), () => opened += 1)
    assert(keys(c) == List(7L, 9, 11, 13))
    assert(opened == 2)
    for ((lo, hi) <- Seq((0L, 100L), (1L, 1L), (2L, 2L), (23L, 30L), (24L, 30L), (-5L, 0L), (8L, 21L), (5L, 4L))) {
      val want = run.flatten.filter(k => k >= lo && k <= hi).toList
      assert(keys(rangedCursor(run, KeyRange(lo, hi))) == want, s"range [$lo, $hi]")
    }
  }

  test("a batch cut by a key range is no block; a whole batch inside the range still is") {
    val c = rangedCursor(Seq(Seq(1L, 2, 3, 4, 5, 6, 7, 8, 9)), KeyRange(3, 8))
    assert(c.advance() && c.keyAsLong == 3L && !c.atBlockStart)
    assert(c.advance() && c.advance() && c.keyAsLong == 5L && c.atBlockStart)
    assert(c.blockLastKeyAsLong == 8L)
    assert(!c.skipBlock())
  }

  test("chosen keys yield only their records, and no file after the last chosen key is opened") {
    val run = Seq(Seq(1L, 3, 5, 7, 9, 11), Seq(13L, 15, 17, 19), Seq(21L, 23))
    var opened = 0
    val chosen = LongKeys.of(Array(15L, 2, 9, 3, 14, 3)).counting()
    val c = rangedCursor(run, KeyRange(Long.MinValue, Long.MaxValue), () => opened += 1, Some(chosen))
    assert(keys(c) == List(3L, 9, 15))
    assert(opened == 2)
    // the rows of the three batches decoded ([1, 3, 5, 7], [9, 11], [13, 15, 17, 19]) not chosen
    assert(chosen.leftOut == 7)
    val random = new scala.util.Random(11)
    for (_ <- 1 to 300) {
      val all = Seq.fill(random.nextInt(30))(random.nextInt(60).toLong).distinct.sorted
      val files = all.grouped(1 + random.nextInt(7)).toSeq
      val chosen = Array.fill(random.nextInt(12))(random.nextInt(70).toLong - 5)
      val (lo, hi) = (random.nextInt(70).toLong - 5, random.nextInt(70).toLong - 5)
      val want = all.filter(k => k >= lo && k <= hi && chosen.contains(k)).toList
      val cursor = rangedCursor(files, KeyRange(lo, hi), chosen = Some(LongKeys.of(chosen)))
      val got = Iterator.continually(cursor.advance()).takeWhile(identity).map { _ =>
        assert(!cursor.atBlockStart)
        assert(cursor.current.value.getLong(1) == cursor.keyAsLong * 10)
        cursor.keyAsLong
      }.toList
      assert(got == want, s"$files, keys ${chosen.toSeq}, range [$lo, $hi]")
    }
  }
}
