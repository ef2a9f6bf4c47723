package lamina.table.commit

import java.nio.ByteBuffer

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.fs.Path

import lamina.dv.{DeletionFile, DeletionVectorsIndexFile}
import lamina.errors.CommitConflictException
import lamina.table.{FileStorePaths, FileStoreTable}
import lamina.table.manifest.{IndexManifestEntry, ManifestEntry}
import lamina.table.snapshot.Snapshot

/** The index manifest of the snapshot one commit makes (Paimon lists every live index file in it, all
 *  as ADDs): the latest snapshot's entries, with the deletion-vector index of each bucket a compaction
 *  changed replaced by the compaction's ([[IndexChange]]), and the vectors of data files this commit
 *  deletes otherwise (an overwrite, a copy-on-write DELETE) dropped: an index file left with vectors of
 *  live files only is rewritten without the others. A bucket whose index changed since the compaction
 *  planned is a [[CommitConflictException]]: its vectors would be lost.
 *  Files it writes are listed in `written` (index files by path, the manifest by name) so that a
 *  failed commit removes them. */
final class IndexManifestUpdate(table: FileStoreTable) {
  private val store = table.manifestStore
  val writtenIndexFiles: ArrayBuffer[Path] = ArrayBuffer.empty
  private type Key = (ByteBuffer, Int)

  /** The new snapshot's index manifest name (None: no index), and whether it is a new file. */
  def apply(latest: Option[Snapshot], entries: Seq[ManifestEntry], changes: Seq[(Array[Byte], Int, IndexChange)])
      : (Option[String], Boolean) = {
    val previous = latest.flatMap(_.indexManifest)
    // an append neither changes nor drops vectors: the index manifest is carried over unread
    if (changes.isEmpty && entries.forall(_.isAdd)) return (previous, false)
    val current = previous.map(store.readIndexManifest).getOrElse(Seq.empty)
    def isDv(e: IndexManifestEntry) = e.indexFile.indexType == DeletionVectorsIndexFile.IndexType
    def key(partition: Array[Byte], bucket: Int): Key = (ByteBuffer.wrap(partition), bucket)
    val changed: Map[Key, IndexChange] = changes.map { case (p, b, c) => key(p, b) -> c }.toMap
    changed.foreach { case (k, c) =>
      val now = current.filter(e => isDv(e) && key(e.partition, e.bucket) == k && e.indexFile.dvRanges.exists(_.nonEmpty))
        .map(_.indexFile.fileName).toSet
      if (now != c.before)
        throw new CommitConflictException(s"Commit to table ${table.name} conflicts with a concurrent commit: the " +
          s"deletion vectors of bucket ${k._2} changed while this compaction ran. Retry the operation.")
    }
    val deleted: Map[Key, Set[String]] = entries.filterNot(_.isAdd).groupBy(e => key(e.partition, e.bucket))
      .map { case (k, es) => k -> es.map(_.file.fileName).toSet }
    var touched = changed.nonEmpty
    val kept = current.flatMap { e =>
      val k = key(e.partition, e.bucket)
      if (isDv(e) && changed.contains(k)) Seq.empty
      else if (!isDv(e) || !deleted.contains(k)) Seq(e)
      else {
        val ranges = e.indexFile.dvRanges.getOrElse(Seq.empty)
        val (gone, live) = ranges.partition(r => deleted(k).contains(r.dataFileName))
        if (gone.isEmpty) Seq(e)
        else {
          touched = true
          if (live.isEmpty) Seq.empty
          else {
            // an index file with vectors of files that stay: rewritten with theirs only
            val path = table.paths.indexFile(e.indexFile.fileName).toString
            val vectors = live.map(r =>
              r.dataFileName ->
                DeletionVectorsIndexFile.read(table.fileIO, DeletionFile(path, e.indexFile.fileSize, r)))
            DeletionVectorsIndexWriter.write(table, vectors).map { meta =>
              writtenIndexFiles += table.paths.indexFile(meta.fileName)
              e.copy(indexFile = meta)
            }
          }
        }
      }
    }
    if (!touched) return (previous, false)
    val added = changes.flatMap { case (p, b, c) => c.after.map(f => IndexManifestEntry(ManifestEntry.Add, p, b, f)) }
    val all = kept ++ added
    if (all.isEmpty) (None, false)
    else {
      val name = s"index-manifest-${FileStorePaths.newUuid()}-0"
      store.writeIndexManifest(name, all)
      (Some(name), true)
    }
  }
}
