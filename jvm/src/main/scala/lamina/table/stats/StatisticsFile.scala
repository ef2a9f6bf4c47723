package lamina.table.stats

import java.util.UUID

import org.apache.hadoop.fs.Path

import lamina.errors.CorruptFileException
import lamina.io.PathNames
import lamina.table.FileStoreTable
import lamina.table.commit.FileStoreCommit
import lamina.table.lifecycle.SnapshotExpiration
import lamina.table.snapshot.Snapshot

/** The statistics files of a table (of its branch): `statistics/stat-<uuid>-0` beside `snapshot/`,
 *  as Paimon names them, written once and never changed. */
final class StatisticsFile(table: FileStoreTable) {
  def dir: Path = PathNames.child(table.branchPath, StatisticsFile.Dir)
  def path(name: String): Path = PathNames.child(dir, name, "statistics file")

  def read(name: String): Statistics = {
    val p = path(name)
    Statistics.fromJson(table.fileIO.readUtf8(p), p.toString)
  }

  /** The statistics file `s` names, checked against `s` and the schema it describes
   *  ([[StatisticsCheck]]). */
  private def readChecked(s: Snapshot, name: String): Statistics = {
    val stats = read(name)
    val p = path(name).toString
    val schema =
      try table.schemaManager.schema(stats.schemaId)
      catch {
        case e: Exception => throw new CorruptFileException(p, -1, "the schemaId of a schema of the table",
            s"schemaId ${stats.schemaId}", e.getMessage, e)
      }
    StatisticsCheck.check(stats, s.id, schema, p)
  }

  /** Writes `stats` to a new file; its name. */
  def write(stats: Statistics): String = {
    val name = s"${StatisticsFile.Prefix}${UUID.randomUUID()}-0"
    table.fileIO.writeBytes(path(name), stats.toJson.getBytes(java.nio.charset.StandardCharsets.UTF_8))
    name
  }

  /** Records `stats` (computed at the latest snapshot, `stats.snapshotId`) in a new ANALYZE snapshot
   *  with the same files, as Paimon's ANALYZE commits; later snapshots carry the file on until the next
   *  ANALYZE. None (nothing written) when the table has no snapshot. */
  def commit(stats: Statistics): Option[Long] = {
    if (table.snapshotManager.latest().isEmpty) return None
    val name = write(stats)
    val id =
      try new FileStoreCommit(table, FileStoreCommit.newUser()).analyze(name)
      catch { case e: Throwable => table.fileIO.deleteQuietly(path(name)); throw e }
    if (id.isDefined) SnapshotExpiration.afterCommit(table)
    id
  }

  /** The statistics a snapshot carries, if any. */
  def of(s: Snapshot): Option[Statistics] = s.statistics.map(readChecked(s, _))
}

object StatisticsFile {
  val Dir = "statistics"
  val Prefix = "stat-"
}
