package lamina.table.lifecycle

import org.scalatest.funsuite.AnyFunSuite

class TagsTest extends AnyFunSuite {
  test("tags go when their retention ran out, or when created before older_than; the others stay") {
    val f = LifecycleFixture()
    Tags.create(f.table, "short", Some(2L), Some(java.time.Duration.ofMinutes(1)))
    Tags.create(f.table, "forever", Some(3L), None)
    val now = java.time.LocalDateTime.now()
    assert(Tags.expire(f.table, now, None).isEmpty)
    assert(Tags.expire(f.table, now.plusMinutes(2), None) === Seq("short"))
    assert(f.table.snapshotManager.tags.names() === Seq("forever"))
    assert(Tags.expire(f.table, now, Some(now.minusDays(1))).isEmpty)
    assert(Tags.expire(f.table, now, Some(now.plusDays(1))) === Seq("forever"))
    assert(f.table.snapshotManager.tags.names().isEmpty)
  }
}
