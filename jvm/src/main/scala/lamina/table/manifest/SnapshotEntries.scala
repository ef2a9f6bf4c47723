package lamina.table.manifest

import java.io.FileNotFoundException

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.fs.Path

import lamina.errors.CorruptFileException
import lamina.table.snapshot.Snapshot

/** The live data files of one snapshot, read from its base and delta manifest lists with every
 *  cross-check the metadata allows, so that a damaged or missing file is reported, naming it and the
 *  snapshot that refers to it, instead of changing which rows a reader sees:
 *  - a manifest list or manifest that is missing or unreadable;
 *  - a manifest whose ADD and DELETE entries do not number what its manifest-list record says
 *    (a flipped `_KIND`, a record cut from a block);
 *  - a DELETE of a file no earlier entry added (checked when every manifest is read);
 *  - live files whose row counts do not add up to the snapshot's `totalRecordCount` (checked when
 *    every manifest is read and the snapshot records the total). */
final class SnapshotEntries(store: ManifestStore, snapshotPath: Long => Path, tableName: String) {

  def live(snapshot: Snapshot, manifestFilter: Option[ManifestFileMeta => Boolean] = None): Seq[ManifestEntry] = {
    def referredBy(e: CorruptFileException) = new CorruptFileException(e.path, e.offset, e.expected, e.actual,
      s"referred to by snapshot ${snapshot.id} of table $tableName (${snapshotPath(snapshot.id)})", e)
    def missing(name: String, what: String, e: Throwable) = new CorruptFileException(
      store.manifestPath(name).toString, -1,
      s"$what referred to by snapshot ${snapshot.id} of table $tableName " +
        s"(${snapshotPath(snapshot.id)})", "no such file", "", e)
    def guarded[T](name: String, what: String)(body: => T): T =
      try body
      catch {
        case e: FileNotFoundException => throw missing(name, what, e)
        case e: CorruptFileException if e.path == store.manifestPath(name).toString => throw referredBy(e)
      }

    val lists = Seq(snapshot.baseManifestList, snapshot.deltaManifestList)
    val metas = lists.flatMap(l => guarded(l, "a manifest list")(store.readList(l)).map(l -> _))
    val entries = ArrayBuffer.empty[(String, ManifestEntry)]
    metas.foreach { case (list, m) =>
      if (manifestFilter.forall(_(m))) {
        val read = guarded(m.fileName, "a manifest")(store.readManifest(m.fileName))
        val adds = read.count(_.isAdd).toLong
        if (adds != m.numAddedFiles || read.size - adds != m.numDeletedFiles)
          throw referredBy(new CorruptFileException(store.manifestPath(m.fileName).toString, -1,
              s"${m.numAddedFiles} added and ${m.numDeletedFiles} deleted files, as manifest list $list says",
              s"$adds added and ${read.size - adds} deleted"))
        read.foreach(e => entries += m.fileName -> e)
      }
    }
    val whole = manifestFilter.isEmpty
    val result = ManifestEntry.mergeLive[String](entries.iterator,
      (manifest, e) =>
        if (whole) throw referredBy(new CorruptFileException(store.manifestPath(manifest).toString, -1,
            s"a DELETE of a file an earlier entry added", s"a DELETE of ${e.file.fileName} (bucket ${e.bucket}), never added")))
    if (whole) snapshot.totalRecordCount.foreach { total =>
      val rows = result.iterator.map(_.file.rowCount).sum
      if (rows != total)
        throw new CorruptFileException(snapshotPath(snapshot.id).toString, -1,
          s"totalRecordCount equal to the rows of its live files ($rows, in ${lists.mkString(" and ")})",
          total.toString, s"snapshot ${snapshot.id} of table $tableName")
    }
    result
  }
}
