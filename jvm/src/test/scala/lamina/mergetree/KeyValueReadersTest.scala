package lamina.mergetree

import org.scalatest.funsuite.AnyFunSuite

import lamina.table.TestTables

class KeyValueReadersTest extends AnyFunSuite {

  private def file(name: String, minSeq: Long, maxSeq: Long) =
    TestTables.file(name).copy(minSequenceNumber = minSeq, maxSequenceNumber = maxSeq)

  test("runs with disjoint ranges of sequence numbers stand in by their maxima, in the runs' order") {
    val runs = Seq(
      Seq(file("l0-new", 300, 349)),
      Seq(file("l0-old", 200, 299)),
      // a compacted run of two files: their own ranges overlap, which never matters (no key in both)
      Seq(file("l5-a", 0, 150), file("l5-b", 3, 199)))
    assert(KeyValueReaders.runSequences(runs).contains(IndexedSeq(349L, 299L, 199L)))
    assert(KeyValueReaders.runSequences(Seq(Seq(file("one", 5, 5)))).contains(IndexedSeq(5L)))
    assert(KeyValueReaders.runSequences(Seq.empty).contains(IndexedSeq.empty))
  }

  test("runs whose ranges overlap or touch read their sequence numbers") {
    // two writers of one bucket, or files of another writer: the order of records is per record
    assert(KeyValueReaders.runSequences(Seq(Seq(file("a", 0, 100)), Seq(file("b", 50, 150)))).isEmpty)
    assert(KeyValueReaders.runSequences(Seq(Seq(file("a", 0, 100)), Seq(file("b", 100, 150)))).isEmpty)
    assert(KeyValueReaders.runSequences(Seq(Seq(file("a", 10, 20)), Seq(file("b", 0, 5), file("c", 30, 40)))).isEmpty)
    assert(KeyValueReaders.runSequences(Seq(Seq(file("a", 10, 20)), Seq.empty)).isEmpty)
  }
}
