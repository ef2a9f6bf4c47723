package lamina.table.snapshot

import lamina.errors.CorruptFileException

/** A changelog kept longer than its snapshot: the `changelog/changelog-<id>` JSON file of Paimon's
 *  layout (Paimon's `Changelog` class), written by snapshot expiration when the table's `changelog.*`
 *  retention outlives its `snapshot.*` retention. Its text is the expired snapshot's JSON, field for
 *  field (docs/format/changelog-and-streams.md); of the files it names, only the changelog manifest
 *  list, its manifests and the changelog data files they add still exist.
 *  Invariant: `snapshot.changelogManifestList` is set (Lamina keeps changelogs only of tables that
 *  produce them). */
final case class Changelog(snapshot: Snapshot) {
  def id: Long = snapshot.id
  def timeMillis: Long = snapshot.timeMillis

  def toJson: String = snapshot.toJson
}

object Changelog {

  /** Parses as strictly as [[Snapshot.fromJson]], and checks that the id is the one the file's name
   *  (`path`, ending in `changelog-<expectedId>`) says; damage is a [[CorruptFileException]] naming
   *  the file. */
  def fromJson(json: String, path: String, expectedId: Long): Changelog = {
    val s = Snapshot.fromJson(json, path)
    if (s.id != expectedId)
      throw new CorruptFileException(path, 0, s"changelog id $expectedId, as its name says", s.id.toString)
    Changelog(s)
  }
}
