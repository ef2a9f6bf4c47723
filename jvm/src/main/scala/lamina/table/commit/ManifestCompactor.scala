package lamina.table.commit

import scala.collection.mutable.ArrayBuffer

import lamina.table.manifest.{ManifestEntry, ManifestFileMeta, ManifestStore}

/** Keeps the number of manifests a snapshot references bounded: when the previous snapshot's
 *  manifests number at least `minCount`, they are folded into new manifests holding only live ADDs
 *  (a DELETE and the ADD it cancels both disappear). Old manifests stay on disk for older snapshots. */
final class ManifestCompactor(store: ManifestStore, schemaId: Long, minCount: Int) {
  def maybeMerge(previous: Seq[ManifestFileMeta], written: ArrayBuffer[String]): Seq[ManifestFileMeta] = {
    if (previous.size < minCount) return previous
    val live = ManifestEntry.mergeLive(previous.iterator.flatMap(m => store.readManifest(m.fileName)))
    val merged = store.writeManifests(live, schemaId)
    written ++= merged.map(_.fileName)
    merged
  }
}
