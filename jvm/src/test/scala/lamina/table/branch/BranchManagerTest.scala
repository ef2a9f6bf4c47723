package lamina.table.branch

import org.scalatest.funsuite.AnyFunSuite

class BranchManagerTest extends AnyFunSuite {
  test("a table name splits into the table, its branch and the system table, as Paimon names them") {
    assert(BranchManager.splitName("t") === (("t", None, None)))
    assert(BranchManager.splitName("t$branch_dev") === (("t", Some("dev"), None)))
    assert(BranchManager.splitName("t$snapshots") === (("t", None, Some("snapshots"))))
    assert(BranchManager.splitName("t$branch_dev$snapshots") === (("t", Some("dev"), Some("snapshots"))))
  }

  test("main is the table's own directory; other branches live under branch/branch-<name>") {
    val root = new org.apache.hadoop.fs.Path("/w/db.db/t")
    assert(BranchManager.branchPath(root, "main") === root)
    assert(BranchManager.branchPath(root, "dev").toString === "/w/db.db/t/branch/branch-dev")
    assert(BranchManager.normalize(" ") === "main")
  }
}
