package lamina.table.options

import org.scalatest.funsuite.AnyFunSuite

class ChangelogRetentionTest extends AnyFunSuite {
  test("changelogs outlive snapshots only when a changelog setting exceeds its snapshot counterpart") {
    import ChangelogRetention.outlivesSnapshots
    assert(!outlivesSnapshots(Map.empty))
    assert(!outlivesSnapshots(Map("changelog.num-retained.max" -> "5", "snapshot.num-retained.max" -> "5")))
    assert(!outlivesSnapshots(Map("changelog.num-retained.min" -> "3")))
    assert(outlivesSnapshots(Map("changelog.num-retained.min" -> "11")))
    assert(outlivesSnapshots(Map("changelog.num-retained.max" -> "6", "snapshot.num-retained.max" -> "5")))
    assert(outlivesSnapshots(Map("changelog.time-retained" -> "8 d")))
    assert(!outlivesSnapshots(Map("changelog.time-retained" -> "1 h", "snapshot.time-retained" -> "1 h")))
  }
}
