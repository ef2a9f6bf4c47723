package lamina.mergetree

import org.scalatest.funsuite.AnyFunSuite

import lamina.mergetree.function.DeduplicateMergeFunction
import lamina.types._
import MergeTestRows._

/** A reader that takes whole blocks where [[SortMergeReader.MergeIterator.blockRun]] allows, and
 *  merged records elsewhere, sees exactly the records of the plain merge. */
class SortMergeReaderBlocksTest extends AnyFunSuite {
  private val fields = Seq(field(0, "k", IntType(false)), field(1, "v", VarCharType(VarCharType.MaxLength)))
  private val longOrder = KeyOrder(intKeyOrdering, KeyOrder.longKeyOf(Seq(org.apache.spark.sql.types.IntegerType)))

  /** A run cut into blocks of `blockSize` records. */
  private final class BlockCursor(records: IndexedSeq[KeyValue], blockSize: Int) extends RunCursor {
    var at: Int = -1
    override def advance(): Boolean = { at += 1; at < records.size }
    override def current: KeyValue = records(at)
    override def keyAsLong: Long = records(at).key.getInt(0).toLong
    private def blockEnd = math.min(records.size, (at / blockSize + 1) * blockSize)
    override def atBlockStart: Boolean = at < records.size && at % blockSize == 0
    override def blockLastKeyAsLong: Long = records(blockEnd - 1).key.getInt(0).toLong
    override def blockAllAdds: Boolean = (at until blockEnd).forall(i => records(i).isAdd)
    override def skipBlock(): Boolean = { at = blockEnd; at < records.size }
    def block: Seq[KeyValue] = records.slice(at, blockEnd)
  }

  private def out(kv: KeyValue) = (kv.sequenceNumber, kv.valueKind, values(kv.value, fields))

  test("taking whole blocks yields the plain merge's records, in order") {
    val rnd = new scala.util.Random(11)
    var blocksTaken = 0
    (1 to 400).foreach { round =>
      // some runs with deletes: their blocks that hold one are merged record by record
      val runs = randomUniqueRuns(rnd, maxRuns = 5, maxStart = 300, maxSpan = 200,
        deleteOdds = () => if (rnd.nextInt(3) == 0) 8 else 0)
      val expected = SortMergeReader.mergeUniqueRuns(runs.map(_.iterator), longOrder,
        new DeduplicateMergeFunction(false), dropDelete = true).map(out).toList
      val blockSize = rnd.nextInt(8) + 1
      val cursors = runs.map(r => new BlockCursor(r, blockSize))
      val merge = SortMergeReader.mergeUniqueCursors(cursors, longOrder, new DeduplicateMergeFunction(false), dropDelete = true)
      val got = scala.collection.mutable.ArrayBuffer.empty[(Long, Byte, Seq[Any])]
      var done = false
      while (!done) {
        val run = merge.blockRun()
        if (run >= 0) {
          got ++= cursors(run).block.map(out)
          blocksTaken += 1
          merge.skipBlock(run)
        } else if (merge.hasNext) got += out(merge.next())
        else done = true
      }
      assert(got.toList == expected, s"round $round, block size $blockSize")
    }
    assert(blocksTaken > 1000, "blocks were taken")
  }
}
