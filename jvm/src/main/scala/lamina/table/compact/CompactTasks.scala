package lamina.table.compact

import org.apache.spark.sql.catalyst.InternalRow

import lamina.table.FileStoreTable
import lamina.table.bucket.PostponeTasks
import lamina.table.commit.CommitMessage

/** Runs the merge of planned bucket compactions, where the engine it runs in places them (Spark
 *  tasks, for Lamina), and returns one commit message per compaction, in any order. Each task is
 *  [[Compactor.run]] with the table's readers and writers. A postpone-bucket table's compaction first
 *  assigns the rows waiting in bucket-postpone ([[PostponeTasks]]). */
trait CompactTasks extends PostponeTasks {
  def run(table: FileStoreTable, work: Seq[BucketCompaction]): Seq[CommitMessage]

  /** The partitions (rows of the table's partition columns) that the SQL condition `where` selects;
   *  a condition on other columns is refused naming the argument. */
  def partitionsWhere(table: FileStoreTable, where: String): InternalRow => Boolean
}
