package lamina.table.scan

import java.io.FileNotFoundException
import java.nio.ByteBuffer

import org.apache.hadoop.fs.Path

import lamina.dv.{DeletionFile, DeletionVectorsIndexFile}
import lamina.errors.CorruptFileException
import lamina.io.PathNames
import lamina.table.FileStoreTable
import lamina.table.manifest.{IndexManifestEntry, ManifestEntry}
import lamina.table.snapshot.Snapshot

/** The deletion vectors of one snapshot, as its index manifest lists them: for each (partition,
 *  bucket), the [[DeletionFile]] of each live data file that has one. A snapshot without an index
 *  manifest has none. A vector of a data file that its bucket no longer holds is ignored, as Paimon's
 *  reader ignores it (it looks vectors up by the name of each live file; its writers may leave a
 *  vector behind with its file, and Lamina's writers drop such vectors when they rewrite a bucket's
 *  index). A missing or damaged index manifest, an entry that is not an ADD, an index type Lamina does
 *  not know, an index file whose vector count disagrees with its entry, or two vectors for one data
 *  file is a [[CorruptFileException]] naming the index manifest and the snapshot. */
object SnapshotDeletionFiles {
  type Key = (ByteBuffer, Int)

  /** The index types of Paimon 1.4 tables that Lamina reads: deletion vectors, and the key hashes of
   *  dynamic bucket mode. */
  val KnownIndexTypes: Seq[String] = Seq(DeletionVectorsIndexFile.IndexType, "HASH")

  /** `live`: the snapshot's live entries of the partitions read (all of each of their buckets), all of
   *  them when `wholeTable`. */
  def of(table: FileStoreTable, snapshot: Snapshot, live: Seq[ManifestEntry],
      wholeTable: Boolean): Map[Key, Map[String, DeletionFile]] =
    snapshot.indexManifest.fold(Map.empty[Key, Map[String, DeletionFile]]) { name =>
      val store = table.manifestStore
      val manifestPath = store.manifestPath(name).toString
      def referredBy(expected: String, actual: String, cause: Throwable = null) = new CorruptFileException(manifestPath, -1,
        expected, actual, s"the index manifest of snapshot ${snapshot.id} of table ${table.name}", cause)
      val entries =
        try store.readIndexManifest(name)
        catch {
          case e: FileNotFoundException => throw referredBy("an index manifest", "no such file", e)
          case e: CorruptFileException if e.path == manifestPath => throw referredBy(e.expected, e.actual, e)
        }
      entries.find(_.kind != ManifestEntry.Add).foreach(e =>
        throw referredBy("only ADD entries", s"kind ${e.kind} for ${e.indexFile.fileName}"))
      // an index type of its own would hide a damaged DELETION_VECTORS, and the rows it deletes
      entries.find(e => !KnownIndexTypes.contains(e.indexFile.indexType)).foreach(e =>
        throw referredBy(s"an index type of a table with deletion vectors (${KnownIndexTypes.mkString(", ")})",
          s"${e.indexFile.indexType} for ${e.indexFile.fileName}"))
      val inDataDir = flag(table, "index-file-in-data-file-dir")
      val liveNames = live.groupBy(e => (ByteBuffer.wrap(e.partition), e.bucket)).map { case (k, es) =>
        k -> es.map(_.file.fileName).toSet
      }
      entries.filter(_.indexFile.indexType == DeletionVectorsIndexFile.IndexType)
        .groupBy(e => (ByteBuffer.wrap(e.partition), e.bucket)).map { case (key, es) =>
          val files = es.flatMap { e =>
            val path = indexFilePath(table, e, inDataDir).toString
            val ranges = e.indexFile.dvRanges.getOrElse(Seq.empty)
            if (ranges.size != e.indexFile.rowCount)
              throw referredBy(s"${e.indexFile.rowCount} deletion vectors in ${e.indexFile.fileName}", s"${ranges.size}")
            ranges.map(r => r.dataFileName -> DeletionFile(path, e.indexFile.fileSize, r))
          }
          val byName = files.toMap
          if (byName.size != files.size)
            throw referredBy("one deletion vector per data file",
              s"two for ${files.groupBy(_._1).collectFirst { case (n, fs) if fs.size > 1 => n }.get}")
          // the vectors of live files only; a partition not read keeps all of its own
          val names = liveNames.getOrElse(key, if (wholeTable) Set.empty[String] else byName.keySet)
          key -> byName.filter { case (n, _) => names.contains(n) }
        }.filter(_._2.nonEmpty)
    }

  /** The names of the deletion-vector index files that hold vectors of bucket `bucket` of `partition`
   *  in `snapshot`, those holding only vectors of files no longer live included: what a rewrite of the
   *  bucket's index replaces. */
  def indexFileNames(table: FileStoreTable, snapshot: Snapshot, partition: Array[Byte], bucket: Int): Set[String] =
    snapshot.indexManifest.fold(Set.empty[String]) { name =>
      val key = ByteBuffer.wrap(partition)
      table.manifestStore.readIndexManifest(name).filter { e =>
        e.indexFile.indexType == DeletionVectorsIndexFile.IndexType && e.bucket == bucket &&
        ByteBuffer.wrap(e.partition) == key && e.indexFile.dvRanges.exists(_.nonEmpty)
      }.map(_.indexFile.fileName).toSet
    }

  /** Where the index file of `e` lies (Paimon's external path, the bucket's directory, or `index/`). */
  def indexFilePath(table: FileStoreTable, e: IndexManifestEntry): Path =
    indexFilePath(table, e, flag(table, "index-file-in-data-file-dir"))

  private def indexFilePath(table: FileStoreTable, e: IndexManifestEntry, inDataDir: Boolean): Path =
    e.indexFile.externalPath.map(PathNames.of).getOrElse {
      if (inDataDir) PathNames.child(table.paths.bucketDir(table.manifestStore.decodePartition(e.partition), e.bucket),
        e.indexFile.fileName, "index file")
      else table.paths.indexFile(e.indexFile.fileName)
    }

  private def flag(table: FileStoreTable, key: String): Boolean =
    table.options.get(key).exists(_.trim.equalsIgnoreCase("true"))
}
