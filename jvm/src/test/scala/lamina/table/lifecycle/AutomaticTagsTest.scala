package lamina.table.lifecycle

import java.time.{Instant, LocalDateTime, ZoneId}

import org.scalatest.funsuite.AnyFunSuite

import lamina.table.TestTables
import lamina.table.TestTables.{file, message}
import lamina.table.options.TagCreationPeriod.{Daily, Hourly, TwoHours}
import lamina.table.sink.TableWriter

class AutomaticTagsTest extends AnyFunSuite {
  private def at(d: Int, h: Int, m: Int = 0) = LocalDateTime.of(2024, 5, d, h, m)

  test("periods: the previous period's start, its name, and names parsed back") {
    assert(Daily.previousPeriod(at(2, 10, 30)) === at(1, 0))
    assert(Hourly.previousPeriod(at(2, 10, 30)) === at(2, 9))
    assert(TwoHours.previousPeriod(at(2, 11, 30)) === at(2, 8))
    assert(TwoHours.previousPeriod(at(2, 0, 30)) === at(1, 22))
    assert(Daily.tagName(at(1, 0)) === "2024-05-01")
    assert(Hourly.tagName(at(2, 9)) === "2024-05-02 09")
    assert(Daily.parse("2024-05-01") === Some(at(1, 0)))
    assert(Hourly.parse("2024-05-02 09") === Some(at(2, 9)))
    assert(Daily.parse("release-1") === None)
    assert(Daily.parse("2024-05-02 09") === None)
  }

  test("a tag is due once a whole period passed after the last tagged one (plus the delay)") {
    val delay = 10 * 60000L
    assert(AutomaticTags.periodToTag(Daily, at(2, 10), 0, None) === Some(at(1, 0)))
    assert(AutomaticTags.periodToTag(Daily, at(2, 23, 59), 0, Some(at(1, 0))) === None)
    assert(AutomaticTags.periodToTag(Daily, at(3, 0, 5), 0, Some(at(1, 0))) === Some(at(2, 0)))
    assert(AutomaticTags.periodToTag(Daily, at(3, 0, 5), delay, Some(at(1, 0))) === None)
    assert(AutomaticTags.periodToTag(Daily, at(3, 0, 15), delay, Some(at(1, 0))) === Some(at(2, 0)))
    assert(AutomaticTags.periodToTag(Daily, at(9, 1), 0, Some(at(1, 0))) === Some(at(8, 0)))
  }

  test("beyond tag.num-retained-max the oldest automatic tags go") {
    val tags = Seq("c" -> at(3, 0), "a" -> at(1, 0), "b" -> at(2, 0))
    assert(AutomaticTags.beyondMax(tags, Some(2)) === Seq("a"))
    assert(AutomaticTags.beyondMax(tags, Some(5)) === Nil)
    assert(AutomaticTags.beyondMax(tags, None) === Nil)
  }

  test("a commit tags the previous hour once and keeps at most tag.num-retained-max automatic tags") {
    val root = TestTables.tempDir("auto-tags")
    try {
      val t = TestTables.createTable(root,
        TestTables.eventsSchema(Map("tag.automatic-creation" -> "process-time",
            "tag.creation-period" -> "hourly", "tag.num-retained-max" -> "2")))
      TableWriter.commitAppend(t, Seq(message("a", file("f1"))))
      Tags.create(t, "2020-01-01 00", Some(1L), None)
      Tags.create(t, "release", Some(1L), None)
      val tags = t.snapshotManager.tags
      for (n <- tags.names().filter(_.startsWith("20")).filterNot(_.startsWith("2020"))) tags.deleteFile(n)
      TableWriter.commitAppend(t, Seq(message("a", file("f2"))))
      val latest = t.snapshotManager.latest().get
      val time = LocalDateTime.ofInstant(Instant.ofEpochMilli(latest.timeMillis), ZoneId.systemDefault())
      val expected = Hourly.tagName(Hourly.previousPeriod(time))
      assert(tags.names() === Seq("2020-01-01 00", expected, "release").sorted)
      assert(tags.getOrThrow(expected).snapshot.id === 2L)
      Tags.create(t, "2020-01-01 01", Some(1L), None)
      TableWriter.commitAppend(t, Seq(message("a", file("f3"))))
      assert(tags.names() === Seq("2020-01-01 01", expected, "release").sorted)
    } finally TestTables.deleteRecursively(root)
  }
}
