package lamina.table.commit

import scala.collection.mutable
import scala.util.Random

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import lamina.table.TestTables
import lamina.table.TestTables.file

/** Random sequences of appends and overwrites against an in-memory model of the live file set,
 *  compared after every commit, for a few fixed seeds. Manifest merging is set low so that merged
 *  and unmerged manifest lists are both exercised. */
class FileStoreCommitPropertyTest extends AnyFunSuite with BeforeAndAfterAll {
  private val root = TestTables.tempDir("commit-property")
  override def afterAll(): Unit = TestTables.deleteRecursively(root)

  private val partitions = Seq("a", "b", "c", "d", null)

  for (seed <- Seq(1L, 20261122L, 987654321L)) {
    test(s"random appends and overwrites match the model (seed $seed)") {
      val rnd = new Random(seed)
      val table = TestTables.createTable(root.resolve(s"seed-$seed"),
        TestTables.eventsSchema(Map("manifest.merge-min-count" -> (2 + rnd.nextInt(4)).toString)))
      val commit = new FileStoreCommit(table, s"prop-$seed")
      // file name -> (partition, bucket, rows)
      val model = mutable.Map.empty[String, (String, Int, Long)]
      val history = mutable.ArrayBuffer.empty[Map[String, (String, Int, Long)]]
      var next = 0

      def newFiles(): Seq[CommitMessage] =
        Seq.fill(rnd.nextInt(4)) {
          val p = partitions(rnd.nextInt(partitions.size))
          val bucket = rnd.nextInt(2)
          val files = Seq.fill(1 + rnd.nextInt(2)) { next += 1; file(s"f$next", rows = 1L + rnd.nextInt(100)) }
          CommitMessage(TestTables.stringPartition(p), bucket, 2, files)
        }
      def add(msgs: Seq[CommitMessage]): Unit = msgs.foreach { m =>
        m.newFiles.foreach(f => model(f.fileName) = (TestTables.stringPartitionValue(m.partition), m.bucket, f.rowCount))
      }

      for (step <- 0 until 40) {
        val msgs = newFiles()
        val before = table.snapshotManager.latestId()
        val committed = rnd.nextInt(4) match {
          case 0 | 1 =>
            add(msgs)
            commit.append(msgs)
          case 2 =>
            val chosen = partitions.filter(_ => rnd.nextBoolean()).toSet
            model.filterInPlace { case (_, (p, _, _)) => !chosen.contains(p) }
            add(msgs)
            commit.overwrite(msgs, Some(row => chosen.contains(if (row.isNullAt(0)) null else row.getUTF8String(0).toString)))
          case 3 =>
            val chosen = partitions.filter(_ => rnd.nextBoolean()).toSet
            model.filterInPlace { case (_, (p, _, _)) => !chosen.contains(p) }
            add(msgs)
            commit.overwritePartitions(msgs, chosen.map(p => java.nio.ByteBuffer.wrap(TestTables.stringPartition(p))))
        }
        committed.foreach { id =>
          assert(id === before.getOrElse(0L) + 1, s"step $step")
          history += model.toMap
        }
        val s = table.snapshotManager.latest()
        val live = s.toSeq.flatMap(commit.liveEntries).map(e =>
          e.file.fileName -> ((TestTables.stringPartitionValue(e.partition), e.bucket, e.file.rowCount)))
        assert(live.map(_._1).distinct.size === live.size, s"step $step: a file is live twice")
        assert(live.toMap === model.toMap, s"step $step")
        assert(s.flatMap(_.totalRecordCount).getOrElse(0L) === model.values.map(_._3).sum, s"step $step")
      }
      // every snapshot still reads the live set it had when it was committed
      for ((expected, i) <- history.zipWithIndex) {
        val s = table.snapshotManager.snapshot(i + 1L)
        assert(
          commit.liveEntries(s).map(e =>
            e.file.fileName -> ((TestTables.stringPartitionValue(e.partition),
              e.bucket, e.file.rowCount))).toMap === expected, s"snapshot ${i + 1}")
      }
      assert(history.size >= 20)
    }
  }
}
