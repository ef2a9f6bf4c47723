package lamina.spark.write

import org.apache.spark.sql.catalyst.InternalRow

import lamina.table.FileStoreTable
import lamina.table.commit.{CommitMessage, FileStoreCommit}

/** Driver-side commits of written files, shared by SQL writes, TRUNCATE and the Python API. */
object TableWriter {
  def commitAppend(table: FileStoreTable, msgs: Seq[CommitMessage], user: String = newUser()): Option[Long] =
    new FileStoreCommit(table, user).append(msgs)

  /** Overwrites the partitions `filter` selects, or (when `partitions` is given) exactly those
   *  serialized partitions. */
  def commitOverwrite(table: FileStoreTable, msgs: Seq[CommitMessage], filter: Option[InternalRow => Boolean],
      user: String = newUser(), partitions: Option[Set[java.nio.ByteBuffer]] = None): Option[Long] = {
    val commit = new FileStoreCommit(table, user)
    partitions match {
      case Some(ps) => commit.overwritePartitions(msgs, ps)
      case None => commit.overwrite(msgs, filter)
    }
  }

  def deleteFiles(table: FileStoreTable, msgs: Seq[CommitMessage]): Unit = {
    val store = table.manifestStore
    msgs.foreach { m =>
      val dir = table.paths.bucketDir(store.decodePartition(m.partition), m.bucket)
      m.newFiles.foreach(f => table.fileIO.deleteQuietly(new org.apache.hadoop.fs.Path(dir, f.fileName)))
    }
  }

  private def newUser(): String = java.util.UUID.randomUUID().toString
}
