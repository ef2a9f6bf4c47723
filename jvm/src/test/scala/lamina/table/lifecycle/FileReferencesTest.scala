package lamina.table.lifecycle

import org.scalatest.funsuite.AnyFunSuite

import lamina.table.TestTables.{file, stringPartition, stringPartitionValue}
import lamina.table.manifest.ManifestEntry

class FileReferencesTest extends AnyFunSuite {
  private def entry(kind: Int, p: String, name: String, level: Int = 0) =
    ManifestEntry(kind, stringPartition(p), 0, -1, file(name, level = level))

  test("a delta removes for good the files it deletes and does not add back") {
    val delta = Seq(entry(ManifestEntry.Delete, "a", "f1"), entry(ManifestEntry.Delete, "a", "f2"),
      entry(ManifestEntry.Add, "a", "f2", level = 5), entry(ManifestEntry.Add, "a", "f3"),
      entry(ManifestEntry.Delete, "b", "f3"))
    assert(FileReferences.removedBy(delta).map(e => (stringPartitionValue(e.partition), e.file.fileName)) ===
      Seq(("a", "f1"), ("b", "f3")))
    assert(FileReferences.removedBy(Nil) === Nil)
  }
}
