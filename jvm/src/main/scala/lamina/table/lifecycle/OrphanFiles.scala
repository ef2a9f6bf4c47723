package lamina.table.lifecycle

import java.io.IOException

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.fs.{FileStatus, Path}
import org.slf4j.LoggerFactory

import lamina.table.{ExternalDataRoots, FileStoreTable}
import lamina.table.branch.BranchManager

/** Files under a table's directory that no snapshot, kept changelog and no tag of any branch refers to (left by a write or a
 *  compaction that failed before its commit, or by a crash of an expiration): found by walking the
 *  table's data, manifest and index directories, and removed when last modified before a safety
 *  margin, so that the files of a write still running are never touched. Under each external root
 *  that `data-file.external-paths` of a branch lists, only the table's layout is walked, as Paimon
 *  walks it: partition directories (`k=v`, as deep as the table has partition keys), then `bucket-*`
 *  directories, then the files in them. The table's own metadata
 *  (`snapshot/`, `changelog/`, `schema/`, `tag/`, `consumer/`, `branch/`, `lease/`) is not walked. Every live
 *  snapshot, kept changelog and tag is
 *  read strictly: a damaged or missing metadata file stops the clean-up, naming the file, before
 *  anything is deleted. */
final class OrphanFiles(table: FileStoreTable) {
  import OrphanFiles._

  private val fileIO = table.fileIO

  /** Every file some live snapshot or tag of any branch refers to, as its path without scheme. */
  def referenced(): Set[String] = {
    val main = table.onBranch(BranchManager.Main)
    (main +: main.branchManager.names().map(main.onBranch)).flatMap { t =>
      val references = new FileReferences(t)
      val snapshots = t.snapshotManager.all() ++ t.snapshotManager.tags.all().map(_._2.snapshot)
      snapshots.distinctBy(_.id).flatMap { s =>
        references.liveDataFiles(s) ++ references.metadataFiles(s, strict = true) ++ references.changelogFiles(s)
      } ++ references.keptChangelogFiles(strict = true)
    }.map(normal).toSet
  }

  /** The files no snapshot or tag refers to, last modified before `olderThanMillis`. */
  def find(olderThanMillis: Long): Seq[FileStatus] = {
    val keep = referenced()
    linksFound.clear()
    (walk(table.path, top = true) ++ externalRoots().flatMap(walkExternal)).filter(f =>
      f.getModificationTime < olderThanMillis && !keep.contains(normal(f.getPath)))
      .sortBy(_.getPath.toString)
  }

  /** Deletes (unless `dryRun`) what [[find]] finds; the files found. */
  def remove(olderThanMillis: Long, dryRun: Boolean): Seq[FileStatus] = {
    val orphans = find(olderThanMillis)
    if (!dryRun) orphans.foreach(f => fileIO.deleteQuietly(f.getPath))
    orphans
  }

  /** Symbolic links met by the last [[find]]: reported, never followed nor removed. */
  def links: Seq[Path] = linksFound.toSeq

  private val linksFound = ArrayBuffer.empty[Path]

  private def walk(dir: Path, top: Boolean): Seq[FileStatus] =
    fileIO.list(dir).flatMap { st =>
      val name = st.getPath.getName
      if (name.startsWith(".") || name.startsWith("_")) Nil
      else if (fileIO.isSymlink(st.getPath)) {
        // a link may point anywhere: what it names is not the table's to remove
        linksFound += st.getPath
        log.warn(s"remove_orphan_files on table ${table.name} leaves the symbolic link ${st.getPath} alone: " +
          "links in a table's directory are never followed nor removed")
        Nil
      } else if (st.isDirectory) { if (top && Protected.contains(name)) Nil else walk(st.getPath, top = false) }
      else if (top) Nil // files at the top of a table's directory are not Paimon's data or metadata
      else Seq(st)
    }

  private def normal(p: Path): String = p.toUri.getPath

  private def externalRoots(): Seq[Path] = {
    val main = table.onBranch(BranchManager.Main)
    (main +: main.branchManager.names().map(main.onBranch))
      .flatMap(t => ExternalDataRoots.listed(t.options, t.name)).distinct
  }

  /** The files of the bucket directories under external root `root`; none, with a warning, when the
   *  root cannot be listed (a root of a file system this process cannot reach), as Paimon's listing
   *  does its best: fewer orphans found, never a live file taken. */
  private def walkExternal(root: Path): Seq[FileStatus] =
    try bucketFiles(root)
    catch {
      case e: IOException =>
        log.warn(s"remove_orphan_files on table ${table.name} skips the external root $root, which it cannot list", e)
        Nil
    }

  private def bucketFiles(root: Path): Seq[FileStatus] = {
    def dirs(dir: Path, depth: Int): Seq[Path] = {
      val subdirs = fileIO.list(dir).filter(st => st.isDirectory && !fileIO.isSymlink(st.getPath)).map(_.getPath)
      if (depth == 0) subdirs.filter(_.getName.startsWith("bucket-"))
      else subdirs.filter(_.getName.contains("=")).flatMap(dirs(_, depth - 1))
    }
    dirs(root, table.schema.partitionKeys.size).flatMap(fileIO.list).filter { st =>
      val name = st.getPath.getName
      !st.isDirectory && !name.startsWith(".") && !name.startsWith("_") && !fileIO.isSymlink(st.getPath)
    }
  }

  private val log = LoggerFactory.getLogger(getClass)
}

object OrphanFiles {

  /** The table's own metadata directories: never walked. */
  val Protected: Set[String] = Set("snapshot", "changelog", "schema", "tag", "consumer", "branch", "lease")

  /** Paimon's safety margin: files younger than a day may belong to a write still running. */
  val DefaultMarginMillis: Long = 24L * 60 * 60 * 1000
}
