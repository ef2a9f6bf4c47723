package lamina.mergetree

import org.scalatest.funsuite.AnyFunSuite

import lamina.mergetree.function.{DeduplicateMergeFunction, FirstRowMergeFunction, MergeFunctions}
import lamina.types._
import MergeTestRows._

class SortMergeReaderTest extends AnyFunSuite {
  private val fields = Seq(field(0, "k", IntType(false)), field(1, "v", VarCharType(VarCharType.MaxLength)))

  private def merged(runs: Seq[Seq[KeyValue]], dropDelete: Boolean = true): Seq[(Long, String, Seq[Any])] =
    SortMergeReader.merge(runs.map(_.iterator), intKeyOrdering, new DeduplicateMergeFunction(false), dropDelete)
      .map(kv => (kv.sequenceNumber, RowKind.shortString(kv.valueKind), values(kv.value, fields)))
      .toList

  test("overlapping runs: the highest sequence number of each key wins, keys come out ascending") {
    val newer = Seq(kv(5, "+I", row(1, "b")), kv(6, "+I", row(3, "c")))
    val older = Seq(kv(1, "+I", row(1, "a")), kv(2, "+I", row(2, "x")), kv(3, "+I", row(3, "y")))
    assert(merged(Seq(newer, older)) ==
      Seq((5L, "+I", Seq(1, "b")), (2L, "+I", Seq(2, "x")), (6L, "+I", Seq(3, "c"))))
  }

  test("non-overlapping runs are concatenated in key order") {
    val a = Seq(kv(1, "+I", row(4, "d")), kv(2, "+I", row(5, "e")))
    val b = Seq(kv(3, "+I", row(1, "a")), kv(4, "+I", row(2, "b")))
    assert(merged(Seq(a, b)).map(_._3) == Seq(Seq(1, "a"), Seq(2, "b"), Seq(4, "d"), Seq(5, "e")))
  }

  test("a run may hold several records of one key, in sequence order") {
    val a = Seq(kv(1, "+I", row(1, "a")), kv(4, "+U", row(1, "d")))
    val b = Seq(kv(2, "+I", row(1, "b")), kv(3, "-D", row(1, "b")))
    assert(merged(Seq(a, b)) == Seq((4L, "+U", Seq(1, "d"))))
  }

  test("deleted keys are dropped, or kept as their retract record when asked") {
    val a = Seq(kv(1, "+I", row(1, "a")), kv(2, "+I", row(2, "b")))
    val b = Seq(kv(3, "-D", row(1, "a")))
    assert(merged(Seq(a, b)) == Seq((2L, "+I", Seq(2, "b"))))
    assert(merged(Seq(a, b), dropDelete = false) == Seq((3L, "-D", Seq(1, "a")), (2L, "+I", Seq(2, "b"))))
  }

  test("empty inputs") {
    assert(merged(Nil).isEmpty)
    assert(merged(Seq(Nil, Nil)).isEmpty)
    val it = SortMergeReader.merge(Nil, intKeyOrdering, new DeduplicateMergeFunction(false))
    assert(!it.hasNext)
    assertThrows[NoSuchElementException](it.next())
  }

  test("sources that reuse one KeyValue and one row object are merged correctly") {
    def reusing(data: Seq[(Int, String, Long)]): Iterator[KeyValue] = {
      val r = new org.apache.spark.sql.catalyst.expressions.GenericInternalRow(2)
      val k = new org.apache.spark.sql.catalyst.expressions.GenericInternalRow(1)
      val shared = new KeyValue(k, 0, RowKind.Insert, r)
      data.iterator.map { case (key, v, seq) =>
        k.setInt(0, key)
        r.setInt(0, key)
        r.update(1, org.apache.spark.unsafe.types.UTF8String.fromString(v))
        shared.sequenceNumber = seq
        shared
      }
    }
    val out = SortMergeReader.merge(
      Seq(reusing(Seq((1, "a", 1), (2, "b", 2), (3, "c", 3))), reusing(Seq((2, "B", 4), (4, "D", 5)))),
      intKeyOrdering, new DeduplicateMergeFunction(false)).map(_.copy()).toList
    assert(out.map(kv => values(kv.value, fields)) == Seq(Seq(1, "a"), Seq(2, "B"), Seq(3, "c"), Seq(4, "D")))
  }

  test("mergeUniqueRuns gives what merge gives for runs of strictly increasing keys, sources reusing one row") {
    val rnd = new scala.util.Random(20261122)
    def reusing(data: Seq[(Int, String, Long, Byte)]): Iterator[KeyValue] = {
      val r = new org.apache.spark.sql.catalyst.expressions.GenericInternalRow(2)
      val k = new org.apache.spark.sql.catalyst.expressions.GenericInternalRow(1)
      val shared = new KeyValue(k, 0, RowKind.Insert, r)
      data.iterator.map { case (key, v, seq, kind) =>
        k.setInt(0, key); r.setInt(0, key)
        r.update(1, org.apache.spark.unsafe.types.UTF8String.fromString(v))
        shared.sequenceNumber = seq; shared.valueKind = kind
        shared
      }
    }
    (1 to 200).foreach { round =>
      var seq = 0L
      val runs = (1 to rnd.nextInt(5) + 1).map { _ =>
        (0 until 30).filter(_ => rnd.nextInt(3) == 0).map { key =>
          seq += 1
          (key, s"v$seq", seq, if (rnd.nextInt(5) == 0) RowKind.Delete else RowKind.Insert)
        }
      }
      Seq(true, false).foreach { drop =>
        Seq(() => new DeduplicateMergeFunction(false), () => new FirstRowMergeFunction()).foreach { mf =>
          def out(it: Iterator[KeyValue]) =
            it.map(kv => (kv.sequenceNumber, kv.valueKind, values(kv.value, fields))).toList
          val expected = out(SortMergeReader.merge(runs.map(reusing), intKeyOrdering, mf(), drop))
          val actual = out(SortMergeReader.mergeUniqueRuns(runs.map(reusing), intKeyOrdering, mf(), drop))
          assert(actual == expected, s"round $round, dropDelete $drop")
        }
      }
    }
  }

  test("the long form of an integral key merges exactly as the key ordering does") {
    val rnd = new scala.util.Random(7)
    val longOrder = KeyOrder(intKeyOrdering, KeyOrder.longKeyOf(Seq(org.apache.spark.sql.types.IntegerType)))
    assert(longOrder.asLong.isDefined)
    def out(it: Iterator[KeyValue]) =
      it.map(kv => (kv.sequenceNumber, kv.valueKind, values(kv.value, fields))).toList
    (1 to 300).foreach { round =>
      // runs of long key ranges (streamed without touching the heap) and sparse ones, with deletes
      val runs = randomUniqueRuns(rnd, maxRuns = 6, maxStart = 200, maxSpan = 150, deleteOdds = () => 6)
      Seq(true, false).foreach { drop =>
        val expected = out(SortMergeReader.merge(runs.map(_.iterator), intKeyOrdering, new DeduplicateMergeFunction(false), drop))
        assert(out(SortMergeReader.merge(runs.map(_.iterator), longOrder, new DeduplicateMergeFunction(false), drop)) == expected,
          s"merge, round $round")
        assert(out(SortMergeReader.mergeUniqueRuns(runs.map(_.iterator), longOrder, new DeduplicateMergeFunction(false), drop)) ==
            expected, s"mergeUniqueRuns, round $round")
        val partial = MergeFunctions.create(fields, Seq("k"),
          Map("merge-engine" -> "partial-update", "partial-update.remove-record-on-delete" -> "true"), "db.t")
        assert(out(SortMergeReader.mergeUniqueRuns(runs.map(_.iterator), longOrder, partial(), drop)) ==
            out(SortMergeReader.merge(runs.map(_.iterator), intKeyOrdering, partial(), drop)), s"partial update, round $round")
      }
    }
  }

  test("up to 64 runs, overlapping or not, keys in several runs: each key's newest record, long form or not") {
    val rnd = new scala.util.Random(64)
    val longOrder = KeyOrder(intKeyOrdering, KeyOrder.longKeyOf(Seq(org.apache.spark.sql.types.IntegerType)))
    def out(it: Iterator[KeyValue]) = it.map(kv => (kv.sequenceNumber, kv.valueKind, values(kv.value, fields))).toList
    (1 to 60).foreach { round =>
      val runs = randomUniqueRuns(rnd, maxRuns = 64, maxStart = if (round % 2 == 0) 3000 else 300, maxSpan = 100,
        deleteOdds = () => if (rnd.nextInt(3) == 0) 5 else 0)
      val newest = runs.flatten.groupBy(_.key.getInt(0)).toSeq.sortBy(_._1).map(_._2.maxBy(_.sequenceNumber))
      val expected = out(newest.iterator.filter(_.isAdd))
      assert(out(SortMergeReader.merge(runs.map(_.iterator), intKeyOrdering, new DeduplicateMergeFunction(false))) == expected,
        s"merge, round $round")
      Seq(KeyOrder.general(intKeyOrdering), longOrder).foreach { o =>
        assert(out(SortMergeReader.mergeUniqueRuns(runs.map(_.iterator), o, new DeduplicateMergeFunction(false),
              dropDelete = true)) == expected, s"mergeUniqueRuns, round $round, long keys ${o.asLong.isDefined}")
        assert(out(SortMergeReader.mergeUniqueRuns(runs.map(_.iterator), o, new DeduplicateMergeFunction(false),
              dropDelete = false)) == out(newest.iterator), s"mergeUniqueRuns keeping deletes, round $round")
      }
    }
  }
}
