package lamina.table.compact

import java.nio.ByteBuffer

import org.apache.spark.sql.catalyst.InternalRow

import lamina.errors.CommitConflictException
import lamina.format.fileindex.{BitmapKey, DataFileIndexWriter, FastHash, FileIndexFile, FileIndexSpec}
import lamina.io.{FileIO, PathNames}
import lamina.table.FileStoreTable
import lamina.table.commit.{CommitOperation, FileStoreCommit}
import lamina.table.lifecycle.SnapshotExpiration
import lamina.table.manifest.{DataFileMeta, ManifestEntry}
import lamina.table.options.{CoreOptions, FileIndexOptions, TableOperation}
import lamina.table.scan.{FileIndexFilter, FileStoreScan}
import lamina.table.schema.TableSchema
import lamina.types.DataField

/** `CALL sys.rewrite_file_index`, as Paimon's `FileIndexProcessor`: gives the live data files of a
 *  table (of the partitions a filter selects) the file indexes its options ask for now, so that a table
 *  that gained `file-index.*` options after its files were written skips them too. Each file's rows
 *  are read again (the indexed columns only, in the file's own schema: names and types it was written
 *  with), its index built as a write would build it, merged with the index it had (index types Lamina
 *  does not write, of columns still named by an option, are kept), and embedded in its manifest entry
 *  or written to a new `.index` file ([[DataFileIndexWriter.nextIndexFileName]]: the old one stays for
 *  the snapshots that refer to it). One COMPACT snapshot replaces each changed entry; the data files
 *  and their rows are untouched. */
object FileIndexRewrite {

  /** The indexed columns of the files of one schema, as read from them, and their index spec (ordinals
   *  into those columns). */
  final case class FileColumns(fields: Seq[DataField], spec: FileIndexSpec)

  /** One data file to index: its live entry and the directory that holds it (its bucket's, or the one
   *  under an external root), where its index files go. */
  final case class Work(entry: ManifestEntry, dir: String)

  /** The files to index, at one snapshot, with per schema id the columns to index (none: the files of
   *  that schema get no index of Lamina's types) and the file's names of the columns some
   *  `file-index.<type>.columns` option names (their other index types are kept); and the size up to
   *  which an index is embedded in its manifest entry. */
  final case class Plan(table: FileStoreTable, work: Seq[Work], columns: Map[Long, Option[FileColumns]],
      named: Map[Long, Set[String]], inManifestThreshold: Long)

  /** A file whose index changed: what was to do, its new metadata, and the index file written for it. */
  final case class Rewritten(work: Work, file: DataFileMeta, written: Option[String])

  /** What a rewrite committed: the snapshot (None when no file's index changed), the partitions and
   *  the files whose indexes changed. */
  final case class Result(snapshotId: Option[Long], partitions: Int, files: Int)

  def plan(table: FileStoreTable, partitionFilter: Option[InternalRow => Boolean]): Plan = {
    table.require(TableOperation.Compact)
    val store = table.manifestStore
    val splits = table.snapshotManager.latest().toSeq.flatMap(s => new FileStoreScan(table, s).plan())
      .filter(s => partitionFilter.forall(f => f(store.decodePartition(s.partition))))
    val work = splits.flatMap { s =>
      val partition = store.decodePartition(s.partition)
      s.files.map(f =>
        Work(ManifestEntry(ManifestEntry.Add, s.partition, s.bucket, s.totalBuckets, f),
          table.paths.dataFile(partition, s.bucket, f).getParent.toString))
    }
    val current = FileIndexOptions.spec(table.options, table.schema.fields, table.name)
    val named = FileIndexOptions.namedColumns(table.options)
    val schemas = work.map(_.entry.file.schemaId).distinct.map { id =>
      id -> (if (id == table.schema.id) table.schema else table.schemaManager.schema(id))
    }
    Plan(table, work, schemas.map { case (id, s) => id -> current.flatMap(columnsOf(table.schema, s, _)) }.toMap,
      schemas.map { case (id, s) =>
        id -> named.flatMap(n => table.schema.field(n).flatMap(c => s.fields.find(_.id == c.id)).map(_.name))
      }.toMap,
      CoreOptions.FileIndexInManifestThreshold.getOrDefault(table.options))
  }

  /** `spec` (by the current schema's columns) for the files written with `fileSchema`: each indexed
   *  column found there by field id, under the name and type it has in the file; a column the file
   *  lacks, or whose type there takes no such index, is left out. None when nothing is left. Pure. */
  def columnsOf(current: TableSchema, fileSchema: TableSchema, spec: FileIndexSpec): Option[FileColumns] = {
    def inFile(name: String): Option[DataField] =
      current.field(name).flatMap(c => fileSchema.fields.find(_.id == c.id))
    val blooms = spec.bloomFilters.flatMap(c => inFile(c.name).filter(f => FastHash.of(f.dataType).isDefined).map(c -> _))
    val bitmaps = spec.bitmaps.flatMap(c => inFile(c.name).filter(f => BitmapKey.of(f.dataType).isDefined).map(c -> _))
    val fields = (blooms.map(_._2) ++ bitmaps.map(_._2)).distinct
    if (fields.isEmpty) None
    else Some(FileColumns(fields,
        spec.copy(
          bloomFilters = blooms.map { case (c, f) => c.copy(name = f.name, ordinal = fields.indexOf(f), dataType = f.dataType) },
          bitmaps = bitmaps.map { case (c, f) => c.copy(name = f.name, ordinal = fields.indexOf(f), dataType = f.dataType) })))
  }

  /** Indexes one file of `plan` from `rows` (its rows of the plan's columns for its schema; not read
   *  when there are none); None when its index stays as it was. */
  def rewrite(fileIO: FileIO, plan: Plan, w: Work, rows: => Iterator[InternalRow]): Option[Rewritten] = {
    val f = w.entry.file
    val columns = plan.columns(f.schemaId)
    val named = plan.named(f.schemaId)
    val inManifestThreshold = plan.inManifestThreshold
    val dir = PathNames.of(w.dir)
    val old = FileIndexFilter.load(fileIO, f, dir)
    val built = columns.map { c =>
      val writer = c.spec.newWriter()
      rows.foreach(writer.update)
      writer.indexes()
    }.getOrElse(Seq.empty)
    val kept = old.toSeq.flatMap(_.entries.toSeq).filter { case (column, _) => named.contains(column) }
    val merged = (built.map(_._1) ++ kept.map(_._1).sorted).distinct.map { column =>
      val fresh = built.find(_._1 == column).map(_._2).getOrElse(Seq.empty)
      val others = old.toSeq.flatMap(o => o.entries.getOrElse(column, Map.empty).keys.toSeq.sorted)
        .filterNot(t => fresh.exists(_._1 == t)).filter(_ => named.contains(column))
        .map(t => t -> old.flatMap(_.index(column, t)).flatten)
      column -> (fresh ++ others)
    }.filter(_._2.nonEmpty)
    val oldIndexFiles = f.extraFiles.filter(_.endsWith(DataFileIndexWriter.Suffix))
    val others = f.extraFiles.filterNot(oldIndexFiles.contains)
    val bytes = if (merged.isEmpty) None else Some(FileIndexFile.encode(merged))
    val unchanged = (bytes, old) match {
      case (None, None) => true
      case (Some(b), Some(o)) => java.util.Arrays.equals(b, o.bytes) &&
        (b.length <= inManifestThreshold) == f.embeddedIndex.isDefined
      case _ => false
    }
    if (unchanged) return None
    bytes match {
      case None => Some(Rewritten(w, f.copy(embeddedIndex = None, extraFiles = others), None))
      case Some(b) if b.length <= inManifestThreshold =>
        Some(Rewritten(w, f.copy(embeddedIndex = Some(b), extraFiles = others), None))
      case Some(b) =>
        val first = oldIndexFiles.headOption.map(DataFileIndexWriter.nextIndexFileName)
          .getOrElse(DataFileIndexWriter.indexFileName(f.fileName))
        // a name left by an earlier run that failed, or one an older snapshot may still use, is not reused
        val name = Iterator.iterate(first)(DataFileIndexWriter.nextIndexFileName)
          .find(n => !fileIO.exists(PathNames.child(dir, n, "file index"))).get
        fileIO.writeBytes(PathNames.child(dir, name, "file index"), b)
        Some(Rewritten(w, f.copy(embeddedIndex = None, extraFiles = others :+ name), Some(name)))
    }
  }

  /** Commits the rewritten files in one COMPACT snapshot; on a conflict the index files written are
   *  removed (never a data file) and the [[CommitConflictException]] says to run the rewrite again. */
  def commit(plan: Plan, rewritten: Seq[Rewritten]): Result = {
    val table = plan.table
    if (rewritten.isEmpty) return Result(None, 0, 0)
    val commit = new FileStoreCommit(table, FileStoreCommit.newUser(), CommitOperation.RewriteFileIndex.properties)
    def discard(): Unit = rewritten.foreach(r =>
      r.written.foreach(n => table.fileIO.deleteQuietly(PathNames.child(PathNames.of(r.work.dir), n, "file index"))))
    val id =
      try commit.rewriteFileIndexes(rewritten.map(r => r.work.entry -> r.file))
      catch {
        case e: CommitConflictException =>
          discard()
          throw new CommitConflictException(
            s"Rewrite of the file indexes of table ${table.name} conflicts with a " +
              s"concurrent commit: ${e.getMessage} Nothing was committed; run rewrite_file_index again.", e)
      }
    if (id.isDefined) SnapshotExpiration.afterCommit(table)
    Result(id, rewritten.map(r => ByteBuffer.wrap(r.work.entry.partition)).distinct.size, rewritten.size)
  }
}

/** Where the files of a [[FileIndexRewrite.Plan]] are read and indexed (Spark tasks, for Lamina): one
 *  [[FileIndexRewrite.rewrite]] per file, the results in any order. */
trait FileIndexTasks {
  def rewrite(plan: FileIndexRewrite.Plan): Seq[FileIndexRewrite.Rewritten]

  /** The partitions (rows of the table's partition columns) that the SQL condition `where` selects;
   *  a condition on other columns is refused naming the argument. */
  def partitionsWhere(table: FileStoreTable, where: String): InternalRow => Boolean
}
