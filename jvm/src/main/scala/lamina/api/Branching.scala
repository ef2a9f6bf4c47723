package lamina.api

import lamina.table.catalog.Metastore
import lamina.table.lifecycle.Branches

/** Branches for `CALL sys.create_branch`, `sys.delete_branch` and `sys.fast_forward`: plain values in
 *  (a `db.t` name, branch and tag names). */
object Branching {

  /** `tag` None or blank: an empty branch with the table's current schema, as in Paimon. */
  def create(warehouse: Metastore, table: String, branch: String, tag: Option[String]): Unit =
    Branches.create(warehouse.loadTable(table), branch, tag.map(_.trim).filter(_.nonEmpty))

  /** `branches` is one name or several, comma-separated (as Paimon's `delete_branch` takes them). */
  def delete(warehouse: Metastore, table: String, branches: String): Unit = {
    val t = warehouse.loadTable(table)
    val names = branches.split(",").map(_.trim).filter(_.nonEmpty).toSeq
    names.foreach(t.branchManager.requireExists)
    names.foreach(Branches.delete(t, _))
  }

  def fastForward(warehouse: Metastore, table: String, branch: String): Unit =
    Branches.fastForward(warehouse.loadTable(table), branch)

  /** The table's branches other than main, by name, with their creation times (epoch ms). */
  def list(warehouse: Metastore, table: String): Seq[(String, Long)] = {
    val b = warehouse.loadTable(table).branchManager
    b.names().map(n => n -> b.createTimeMillis(n))
  }
}
