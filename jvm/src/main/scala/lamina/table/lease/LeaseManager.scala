package lamina.table.lease

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path

import lamina.errors.CorruptFileException
import lamina.io.{FileIO, PathNames}

/** The `lease/` directory of one branch of a table (beside its `snapshot/`): the snapshots running
 *  readers hold ([[SnapshotLease]]). Snapshot expiration keeps every snapshot from the oldest live
 *  lease on. A renewal writes the lease's next file before it deletes the previous one, so a listing
 *  always finds the lease. A lease file that cannot be read holds nothing (a half-written file of a
 *  process that died; the writer's own copies are always complete). */
final class LeaseManager(fileIO: FileIO, branchPath: Path) extends Serializable {
  val dir: Path = PathNames.child(branchPath, "lease")

  /** Writes file `n` of lease `id`; its path. None when the branch has no schema any more (a deleted
   *  branch, a dropped table): a lease there holds nothing, and writing one would bring back the
   *  directory of what was deleted, which listings would then take for a branch or table. */
  def write(id: String, n: Long, lease: SnapshotLease): Option[Path] = {
    if (!fileIO.exists(PathNames.child(branchPath, "schema"))) return None
    fileIO.mkdirsForFiles(dir)
    val p = PathNames.child(dir, s"${LeaseManager.Prefix}$id-$n", "lease file")
    fileIO.writeBytes(p, lease.toJson.getBytes(java.nio.charset.StandardCharsets.UTF_8))
    Some(p)
  }

  def delete(p: Path): Unit = fileIO.deleteQuietly(p)

  /** Every readable lease, with its file. */
  def all(): Seq[(Path, SnapshotLease)] =
    fileIO.list(dir).filter(st => st.isFile && st.getPath.getName.startsWith(LeaseManager.Prefix)).flatMap { st =>
      try Some(st.getPath -> SnapshotLease.fromJson(fileIO.readUtf8(st.getPath), st.getPath.toString))
      catch {
        case _: java.io.FileNotFoundException | _: CorruptFileException => None // renewed or half-written meanwhile
      }
    }

  /** The oldest snapshot id a live lease holds at `nowMillis`. */
  def oldestLeased(nowMillis: Long): Option[Long] = all().map(_._2).filter(_.isLive(nowMillis)).map(_.snapshotId).minOption

  /** Deletes the files of leases that lapsed more than `graceMillis` before `nowMillis` (their
   *  holders died). */
  def removeLapsed(nowMillis: Long, graceMillis: Long): Unit =
    all().foreach { case (p, l) =>
      if (l.expireAtMillis + graceMillis < nowMillis)
        try delete(p)
        catch { case NonFatal(_) => () }
    }
}

object LeaseManager {
  val Prefix = "lease-"
}
