package lamina.table.lifecycle

import java.io.FileNotFoundException

import org.apache.hadoop.fs.Path

import lamina.errors.CorruptFileException
import lamina.io.PathNames
import lamina.table.FileStoreTable
import lamina.table.manifest.{AvroFiles, ManifestEntry}
import lamina.table.snapshot.{Changelog, Snapshot}
import lamina.table.stats.StatisticsFile

/** Which files a snapshot (or a tag's snapshot) refers to, as paths: its data files (with their extra
 *  files), and its metadata: manifest lists, manifests, the index manifest and the index files it
 *  lists (`<table>/index/<name>`, read generically by `_FILE_NAME`, whatever the index type), and its
 *  statistics file.
 *  `strict` reads fail on a missing or damaged file (what must be kept); lenient ones answer what
 *  they could read (what may be deleted: a crashed expiration already removed some of it). */
final class FileReferences(table: FileStoreTable) {
  private val store = table.manifestStore
  private val fileIO = table.fileIO

  private val paths = table.paths

  /** The paths of the data file of entry `e` (its external path when it has one) and of its extra files. */
  def dataPaths(e: ManifestEntry): Seq[Path] = paths.dataFileWithExtras(store.decodePartition(e.partition), e.bucket, e.file)

  /** The paths of extra files `names` of the file of entry `e`. */
  def extraPaths(e: ManifestEntry, names: Seq[String]): Seq[Path] =
    paths.extraFiles(store.decodePartition(e.partition), e.bucket, e.file, names)

  /** Every data file live at `s`; strict. */
  def liveDataFiles(s: Snapshot): Set[Path] = table.snapshotEntries.live(s).flatMap(dataPaths).toSet

  /** [[liveDataFiles]], or None when a file of `s`'s metadata is gone or damaged. */
  def liveDataFilesIfReadable(s: Snapshot): Option[Set[Path]] = lenient(liveDataFiles(s))

  /** The entries of `s`'s delta manifests, or None when one of them is gone. */
  def deltaEntries(s: Snapshot): Option[Seq[ManifestEntry]] = lenient {
    store.readList(s.deltaManifestList).flatMap(m => store.readManifest(m.fileName))
  }

  /** The files of `s`'s changelog manifests (ADDs only: a changelog file belongs to one snapshot). */
  def changelogFiles(s: Snapshot): Seq[Path] = s.changelogManifestList.toSeq.flatMap { l =>
    lenient(store.readList(l).flatMap(m => store.readManifest(m.fileName))).getOrElse(Seq.empty)
      .filter(_.isAdd).flatMap(dataPaths)
  }

  /** The metadata files of `s`; without `withChangelog`, not its changelog manifest list and manifests
   *  (which a kept [[lamina.table.snapshot.Changelog]] still uses once `s` expired). */
  def metadataFiles(s: Snapshot, strict: Boolean, withChangelog: Boolean = true): Set[Path] = {
    val lists = Seq(s.baseManifestList, s.deltaManifestList) ++ s.changelogManifestList.filter(_ => withChangelog)
    val manifests = lists.flatMap(l => read(strict)(store.readList(l).map(_.fileName)))
    val index = s.indexManifest.toSeq.flatMap { im =>
      store.manifestPath(im) +: read(strict)(indexFileNames(im)).map(PathNames.child(indexDir, _, "index file"))
    }
    ((lists ++ manifests).map(store.manifestPath) ++ index ++ s.statistics.map(new StatisticsFile(table).path)).toSet
  }

  /** The files a kept changelog `c` uses: its changelog manifest list, manifests and changelog data
   *  files (what snapshot expiration left of its snapshot), data files first. */
  def changelogReferences(c: Changelog, strict: Boolean): Seq[Path] = c.snapshot.changelogManifestList.toSeq.flatMap { l =>
    val manifests = read(strict)(store.readList(l).map(_.fileName))
    val data = read(strict)(manifests.flatMap(store.readManifest)).filter(_.isAdd).flatMap(dataPaths)
    data ++ (l +: manifests).map(store.manifestPath)
  }

  /** Every file the kept changelogs of this table's branch use ([[changelogReferences]]). */
  def keptChangelogFiles(strict: Boolean): Set[Path] =
    table.changelogManager.all().flatMap(changelogReferences(_, strict)).toSet

  private def read[T](strict: Boolean)(body: => Seq[T]): Seq[T] = if (strict) body else lenient(body).getOrElse(Seq.empty)

  private def indexDir = table.paths.indexDir

  private def indexFileNames(indexManifest: String): Seq[String] =
    AvroFiles.read(fileIO, store.manifestPath(indexManifest)).map { r =>
      Option(r.get("_FILE_NAME")).map(_.toString).getOrElse(
        throw new CorruptFileException(store.manifestPath(indexManifest).toString, -1, "index entries with _FILE_NAME",
          r.getSchema.toString))
    }

  private def lenient[T](body: => T): Option[T] =
    try Some(body)
    catch { case _: FileNotFoundException | _: CorruptFileException => None }
}

object FileReferences {

  /** The extra files a snapshot's delta takes from files it keeps: a DELETE of a file that the same
   *  commit adds again with other extra files (its file index rewritten) leaves the ones only the
   *  DELETE names unused; each such entry with those extra files. Pure. */
  def extrasDroppedBy(delta: Seq[ManifestEntry]): Seq[(ManifestEntry, Seq[String])] = {
    def key(e: ManifestEntry) = (java.nio.ByteBuffer.wrap(e.partition), e.bucket, e.file.fileName)
    val added = delta.filter(_.isAdd).groupBy(key).map { case (k, es) => k -> es.flatMap(_.file.extraFiles).toSet }
    delta.filterNot(_.isAdd).flatMap(e =>
      added.get(key(e)).map(kept => e -> e.file.extraFiles.filterNot(kept))).filter(_._2.nonEmpty)
  }

  /** The data files a snapshot's delta removes for good: its DELETEs of files it does not add again
   *  in the same commit (a compaction that moves a file to another level deletes and adds it). Pure. */
  def removedBy(delta: Seq[ManifestEntry]): Seq[ManifestEntry] = {
    def key(e: ManifestEntry) = (java.nio.ByteBuffer.wrap(e.partition), e.bucket, e.file.fileName)
    val added = delta.filter(_.isAdd).map(key).toSet
    delta.filter(e => !e.isAdd && !added.contains(key(e)))
  }
}
