package lamina.table.commit

import java.nio.ByteBuffer

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.fs.Path

import lamina.dv.{DeletionFile, DeletionVector, DeletionVectorsIndexFile, DeletionVectorsMaintainer}
import lamina.errors.CommitConflictException
import lamina.table.FileStoreTable
import lamina.table.manifest.{IndexManifestEntry, ManifestEntry}
import lamina.table.options.CoreOptions
import lamina.table.scan.{DataSplit, SnapshotDeletionFiles}
import lamina.table.snapshot.Snapshot

/** What a DELETE, UPDATE or MERGE of an append table with deletion vectors changes in the snapshot it
 *  commits on top of (`latest`), in Paimon's append-table layout: the index entries of a bucket stay
 *  in that bucket (bucket 0 of its partition for a bucket-unaware table). Per bucket whose files it
 *  marks, the index files holding vectors of marked files are replaced by new index files (rolled at
 *  `deletion-vector.index-file.target-size`) with their other vectors unchanged and the marked files'
 *  vectors (the snapshot's positions plus the new ones), and the bucket's other index files stay, as
 *  Paimon's `AppendDeleteFileMaintainer` does; a bucketed table keeps one index file per bucket
 *  (`BucketedAppendDeleteFileMaintainer`), so all of its bucket's vectors go to one new file. A file
 *  whose every row is deleted leaves the table (a DELETE entry) instead of keeping a vector.
 *
 *  Positions were counted in the snapshot the operation read (`read`, its splits with their
 *  vectors). A marked file that `latest` no longer holds, or whose vector changed since (another
 *  DML marked it: the rows it read may be gone), is a [[CommitConflictException]]; marks of other
 *  files, and files added meanwhile, do not conflict. Invariant: a position marked is never lost, as
 *  the vectors of `latest` are the base of the new ones. */
final class AppendDeletionVectorsUpdate(table: FileStoreTable, read: Seq[DataSplit], deleted: DeletedPositions) {
  private type Key = (ByteBuffer, Int)

  private val marked = deleted.files
  private val since = new VectorsSinceRead(table, read)
  marked.keys.find(!since.readFiles.contains(_)).foreach { f =>
    throw new IllegalStateException(s"rows of $f of table ${table.name} were deleted, but the operation read no such file")
  }
  private val bitmap64 = CoreOptions.DeletionVectorsBitmap64.getOrDefault(table.options)

  /** The change on top of `latest`: the files that leave, the index change of each bucket marked and
   *  the index files written for it (removed by the caller when the snapshot is not committed). */
  def at(latest: Option[Snapshot]): AppendDeletionVectorsUpdate.Change = {
    val snapshot = latest.getOrElse(throw new CommitConflictException(s"Commit to table ${table.name} conflicts " +
        "with a concurrent commit: the table has no snapshot any more. Retry the operation."))
    val (live, _) = since.check(snapshot, marked.keys.toSeq, "rows were marked deleted in")
    val entries = snapshot.indexManifest.map(table.manifestStore.readIndexManifest).getOrElse(Seq.empty)
      .filter(_.indexFile.indexType == DeletionVectorsIndexFile.IndexType)
    val written = ArrayBuffer.empty[Path]
    try {
      val byBucket = marked.keys.groupBy(f => (ByteBuffer.wrap(live(f).partition), live(f).bucket))
      val buckets = byBucket.toSeq.map { case (key, files) =>
        val first = live(files.head)
        val (removed, change) = bucket(key, files.toSeq.sorted.map(live), entries.filter(e => keyOf(e) == key), written,
          live.contains)
        (removed, (first.partition, first.bucket, change))
      }
      AppendDeletionVectorsUpdate.Change(buckets.flatMap(_._1), buckets.map(_._2), written.toSeq)
    } catch {
      case e: Throwable => written.foreach(table.fileIO.deleteQuietly); throw e
    }
  }

  private def keyOf(e: IndexManifestEntry): Key = (ByteBuffer.wrap(e.partition), e.bucket)

  /** `isLive`: whether the snapshot holds a data file; the index files rewritten keep the vectors of
   *  live files only (Paimon's writers may leave a vector behind with its file). */
  private def bucket(key: Key, files: Seq[ManifestEntry], entries: Seq[IndexManifestEntry], written: ArrayBuffer[Path],
      isLive: String => Boolean): (Seq[ManifestEntry], IndexChange) = {
    val names = files.map(_.file.fileName).toSet
    val withVectors = entries.filter(_.indexFile.dvRanges.exists(_.nonEmpty))
    val bucketed = files.head.totalBuckets > 0
    val (rewritten, kept) =
      withVectors.partition(e => bucketed || e.indexFile.dvRanges.get.exists(r => names.contains(r.dataFileName)))
    val existing: Map[String, DeletionVector] = rewritten.flatMap { e =>
      val path = SnapshotDeletionFiles.indexFilePath(table, e).toString
      e.indexFile.dvRanges.get.filter(r => isLive(r.dataFileName))
        .map(r => r.dataFileName -> vector(DeletionFile(path, e.indexFile.fileSize, r)))
    }.toMap
    val maintainer = new DeletionVectorsMaintainer(existing, bitmap64)
    val gone = files.flatMap { e =>
      maintainer.deleteAll(e.file.fileName, marked(e.file.fileName))
      if (maintainer.deletedCount(e.file.fileName) < e.file.rowCount) None
      else { maintainer.removeFile(e.file.fileName); Some(e.copy(kind = ManifestEntry.Delete)) }
    }
    val index = DeletionVectorsIndexWriter.write(table, maintainer.vectors)
    index.foreach(m => written += table.paths.indexFile(m.fileName))
    (gone, IndexChange(withVectors.map(_.indexFile.fileName).toSet, kept.map(_.indexFile) ++ index))
  }

  private def vector(f: DeletionFile): DeletionVector = DeletionVectorsIndexFile.read(table.fileIO, f)
}

object AppendDeletionVectorsUpdate {

  /** `removed`: DELETE entries of files whose every row is now deleted; `indexChanges`: by (partition,
   *  bucket); `written`: the index files written for them. */
  final case class Change(removed: Seq[ManifestEntry], indexChanges: Seq[(Array[Byte], Int, IndexChange)],
      written: Seq[Path])
}
