package lamina.mergetree.compact

import lamina.table.FileStoreTable
import lamina.table.commit.CommitMessage

/** Runs the merge of planned bucket compactions, where the engine it runs in places them (Spark
 *  tasks, for Lamina), and returns one commit message per compaction, in any order. Each task is
 *  [[Compactor.run]] with the table's readers and writers. */
trait CompactTasks {
  def run(table: FileStoreTable, work: Seq[BucketCompaction]): Seq[CommitMessage]
}
