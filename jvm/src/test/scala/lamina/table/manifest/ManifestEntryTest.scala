package lamina.table.manifest

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import lamina.table.TestTables

class ManifestEntryTest extends AnyFunSuite {
  private def entry(kind: Int, name: String, partition: String = "a", bucket: Int = 0, level: Int = 0,
      rows: Long = 1L): ManifestEntry =
    ManifestEntry(kind, TestTables.stringPartition(partition), bucket, 2,
      TestTables.file(name, rows = rows, level = level))
  private def add(name: String, partition: String = "a", bucket: Int = 0, level: Int = 0) =
    entry(ManifestEntry.Add, name, partition, bucket, level)
  private def del(name: String, partition: String = "a", bucket: Int = 0, level: Int = 0) =
    entry(ManifestEntry.Delete, name, partition, bucket, level)

  private def live(es: ManifestEntry*): Seq[String] = ManifestEntry.mergeLive(es.iterator).map(_.file.fileName)

  test("a DELETE cancels the ADD it names; the rest keep commit order") {
    assert(live(add("f1"), add("f2"), add("f3"), del("f2")) === Seq("f1", "f3"))
    assert(live() === Nil)
    assert(live(add("f1"), del("f1")) === Nil)
  }

  test("a DELETE with no earlier ADD cancels nothing and does not appear") {
    assert(live(del("f1"), add("f2")) === Seq("f2"))
    assert(live(del("f1"), add("f1")) === Seq("f1"))
  }

  test("a file deleted and added again is live, at its new position") {
    assert(live(add("f1"), add("f2"), del("f1"), add("f1")) === Seq("f2", "f1"))
  }

  test("the same name in another partition, bucket or level is another file") {
    val es = Seq(add("f"), add("f", partition = "b"), add("f", bucket = 1), add("f", level = 2), add("f", partition = null))
    assert(ManifestEntry.mergeLive(es.iterator).size === 5)
    assert(ManifestEntry.mergeLive((es :+ del("f", partition = "b")).iterator).map(e => (e.bucket, e.file.level)) ===
      Seq((0, 0), (1, 0), (0, 2), (0, 0)))
    assert(ManifestEntry.mergeLive((es :+ del("f", bucket = 1)).iterator).size === 4)
    assert(ManifestEntry.mergeLive((es :+ del("f", level = 2)).iterator).size === 4)
  }

  test("identifier compares partitions by content, not by array identity") {
    assert(add("f").identifier === add("f").identifier)
    assert(add("f").identifier !== add("f", partition = "b").identifier)
    assert(add("f", partition = null).identifier !== add("f", partition = "").identifier)
  }

  test("random ADD/DELETE sequences agree with a set model (seeded)") {
    val rnd = new Random(424242L)
    for (round <- 0 until 200) {
      val model = scala.collection.mutable.LinkedHashMap.empty[(String, Int, String), ManifestEntry]
      val es = Seq.fill(rnd.nextInt(40)) {
        val p = Seq("a", "b", null)(rnd.nextInt(3))
        val b = rnd.nextInt(2)
        val name = s"f${rnd.nextInt(6)}"
        val e = if (rnd.nextInt(3) == 0) del(name, p, b) else add(name, p, b)
        val key = (p, b, name)
        if (e.isAdd) { if (!model.contains(key)) model.put(key, e) else model.update(key, e) }
        else model.remove(key)
        e
      }
      val got = ManifestEntry.mergeLive(es.iterator).map(e =>
        (TestTables.stringPartitionValue(e.partition), e.bucket, e.file.fileName))
      assert(got === model.keys.toSeq, s"round $round")
    }
  }
}
