package lamina.table.commit

import java.nio.ByteBuffer

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.fs.Path

import lamina.dv.{DeletionFile, DeletionVectorsIndexFile}
import lamina.errors.CommitConflictException
import lamina.table.{FileStorePaths, FileStoreTable}
import lamina.table.bucket.{HashIndexChange, HashIndexFile}
import lamina.table.manifest.{IndexManifestEntry, ManifestEntry}
import lamina.table.snapshot.Snapshot

/** The index manifest of the snapshot one commit makes (Paimon lists every live index file in it, all
 *  as ADDs): the latest snapshot's entries, with the deletion-vector index of each bucket a compaction
 *  changed replaced by the compaction's ([[IndexChange]]), and the vectors of data files this commit
 *  deletes otherwise (an overwrite, a copy-on-write DELETE) dropped: an index file left with vectors of
 *  live files only is rewritten without the others. A bucket whose index changed since the compaction
 *  planned is a [[CommitConflictException]]: its vectors would be lost.
 *  A dynamic bucket given new keys has its hash index replaced ([[HashIndexChange]]); a partition whose
 *  hash index changed since the write read it is a conflict (a key could now be in two buckets). An
 *  overwrite drops the hash index of every partition it removes files from or writes to.
 *  Files it writes are listed in `written` (index files by path, the manifest by name) so that a
 *  failed commit removes them. */
final class IndexManifestUpdate(table: FileStoreTable) {
  private val store = table.manifestStore
  val writtenIndexFiles: ArrayBuffer[Path] = ArrayBuffer.empty
  private type Key = (ByteBuffer, Int)

  /** The new snapshot's index manifest name (None: no index), and whether it is a new file. */
  def apply(latest: Option[Snapshot], entries: Seq[ManifestEntry], changes: Seq[(Array[Byte], Int, IndexChange)],
      hashes: Seq[(Array[Byte], Int, HashIndexChange)] = Seq.empty, overwrite: Boolean = false): (Option[String], Boolean) = {
    val previous = latest.flatMap(_.indexManifest)
    // an append neither changes nor drops vectors: the index manifest is carried over unread
    if (changes.isEmpty && hashes.isEmpty && entries.forall(_.isAdd)) return (previous, false)
    val read = previous.map(store.readIndexManifest).getOrElse(Seq.empty)
    def isDv(e: IndexManifestEntry) = e.indexFile.indexType == DeletionVectorsIndexFile.IndexType
    def key(partition: Array[Byte], bucket: Int): Key = (ByteBuffer.wrap(partition), bucket)
    val current = hashIndexes(read, entries, hashes, overwrite)
    val changed: Map[Key, IndexChange] = changes.map { case (p, b, c) => key(p, b) -> c }.toMap
    changed.foreach { case (k, c) =>
      val now = current.filter(e => isDv(e) && key(e.partition, e.bucket) == k && e.indexFile.dvRanges.exists(_.nonEmpty))
        .map(_.indexFile.fileName).toSet
      if (now != c.before)
        throw new CommitConflictException(s"Commit to table ${table.name} conflicts with a concurrent commit: the " +
          s"deletion vectors of bucket ${k._2} changed while this compaction ran. Retry the operation.")
    }
    // a file deleted and added again in one commit (moved to another level, its index rewritten) keeps its rows
    val readded = entries.filter(_.isAdd).map(e => (key(e.partition, e.bucket), e.file.fileName)).toSet
    val deleted: Map[Key, Set[String]] = entries.filterNot(_.isAdd)
      .filterNot(e => readded((key(e.partition, e.bucket), e.file.fileName))).groupBy(e => key(e.partition, e.bucket))
      .map { case (k, es) => k -> es.map(_.file.fileName).toSet }
    var touched = changed.nonEmpty || hashes.nonEmpty || current.size != read.size
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
    val added = changes.flatMap { case (p, b, c) => c.after.map(f => IndexManifestEntry(ManifestEntry.Add, p, b, f)) } ++
      hashes.map { case (p, b, c) => IndexManifestEntry(ManifestEntry.Add, p, b, c.after) }
    val all = kept ++ added
    if (all.isEmpty) (None, false)
    else {
      val name = s"index-manifest-${FileStorePaths.newUuid()}-0"
      store.writeIndexManifest(name, all)
      (Some(name), true)
    }
  }

  /** The entries of `read` without the hash indexes that `hashes` replace, or that an overwrite drops. */
  private def hashIndexes(read: Seq[IndexManifestEntry], entries: Seq[ManifestEntry],
      hashes: Seq[(Array[Byte], Int, HashIndexChange)], overwrite: Boolean): Seq[IndexManifestEntry] = {
    def isHash(e: IndexManifestEntry) = e.indexFile.indexType == HashIndexFile.IndexType
    if (overwrite) {
      val dropped = (entries.filterNot(_.isAdd).map(_.partition) ++ hashes.map(_._1)).map(ByteBuffer.wrap).toSet
      return read.filterNot(e => isHash(e) && dropped.contains(ByteBuffer.wrap(e.partition)))
    }
    if (hashes.isEmpty) return read
    hashes.groupBy(h => ByteBuffer.wrap(h._1)).foreach { case (partition, hs) =>
      val now = read.filter(e => isHash(e) && ByteBuffer.wrap(e.partition) == partition).map(_.indexFile.fileName).toSet
      if (hs.exists(_._3.partitionRead != now))
        throw new CommitConflictException(s"Commit to table ${table.name} conflicts with a concurrent commit: the " +
          s"dynamic-bucket index of a partition changed while this write assigned new keys to its buckets (bucket " +
          s"${hs.map(_._2).min}). Retry the operation.")
    }
    val replaced = hashes.flatMap(_._3.replaced).toSet
    read.filterNot(e => isHash(e) && replaced.contains(e.indexFile.fileName))
  }
}
