package lamina.table.lifecycle

import java.util.concurrent.{Executors, TimeUnit}

import org.apache.hadoop.fs.Path
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CommitConflictException
import lamina.table.TestTables
import lamina.table.TestTables.{file, stringPartition}
import lamina.table.commit.{CommitMessage, FileStoreCommit}
import lamina.table.manifest.DataFileMeta

/** Writers that append and compact while each also expires after its commits, as every Lamina
 *  commit does: whatever interleaving, every snapshot and tag left reads files that all exist. */
class ConcurrentExpirationTest extends AnyFunSuite {

  test("concurrent commits and expirations never delete a file a kept snapshot or tag uses") {
    val root = TestTables.tempDir("concurrent-expiration")
    try {
      val table = TestTables.createTable(root, TestTables.eventsSchema())
      val refs = new FileReferences(table)
      def touch(p: String, name: String): Unit = table.fileIO.writeBytes(
        new Path(table.paths.bucketDir(table.manifestStore.decodePartition(stringPartition(p)), 0), name),
        Array.emptyByteArray)
      val policy = RetentionPolicy(2, Int.MaxValue, 0L, 50)
      val pool = Executors.newFixedThreadPool(4)
      val rounds = 15
      val jobs = (0 until 4).map { w =>
        pool.submit(new Runnable {
          def run(): Unit = {
            val commit = new FileStoreCommit(table, s"writer-$w")
            val p = s"p$w"
            var live = Seq.empty[DataFileMeta]
            for (i <- 0 until rounds) {
              val name = s"w$w-$i"
              touch(p, name)
              commit.append(Seq(CommitMessage(stringPartition(p), 0, -1, Seq(file(name, rows = 1)))))
              live :+= file(name, rows = 1)
              if (i % 3 == 2) {
                // compact this writer's partition: its files into one
                val out = file(s"w$w-$i-c", rows = live.map(_.rowCount).sum)
                touch(p, out.fileName)
                try {
                  commit.append(Seq(CommitMessage(stringPartition(p), 0, -1, Nil, compactBefore = live,
                        compactAfter = Seq(out))))
                  live = Seq(out)
                } catch { case _: CommitConflictException => () }
              }
              if (i == 5 && w == 0) Tags.create(table, "mid", None, None)
              new SnapshotExpiration(table).expire(policy, System.currentTimeMillis() + 60000)
            }
          }
        })
      }
      pool.shutdown()
      assert(pool.awaitTermination(5, TimeUnit.MINUTES))
      jobs.foreach(_.get())
      val snapshots = table.snapshotManager
      val kept = snapshots.all() ++ snapshots.tags.all().map(_._2.snapshot)
      assert(snapshots.all().size >= 2 && snapshots.tags.names() === Seq("mid"))
      for (s <- kept) {
        val missing = (refs.liveDataFiles(s) ++ refs.metadataFiles(s, strict = true)).filterNot(table.fileIO.exists)
        assert(missing.isEmpty, s"snapshot ${s.id}")
      }
      // the latest snapshot holds every writer's rows: 4 partitions, rounds rows each
      assert(table.snapshotEntries.live(snapshots.latest().get).map(_.file.rowCount).sum === 4L * rounds)
    } finally TestTables.deleteRecursively(root)
  }
}
