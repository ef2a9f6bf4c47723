package lamina.mergetree.function

import lamina.table.options.{CoreOptions, MergeEngine}
import lamina.types.DataField

/** Which row-level DML each merge engine honours.
 *
 *  How the writes look, which the rules rely on: DELETE writes a -D record carrying the primary key;
 *  UPDATE writes the whole new row as a +U record (assigned columns new, the others as read);
 *  INSERT OVERWRITE replaces files and merges nothing, so every engine allows it.
 *
 *  - The primary key and the partition columns are never updated: that would move the row to
 *    another key or partition.
 *  - `ignore-delete` drops every -D on write: a DELETE would silently do nothing.
 *  - deduplicate: everything else is allowed.
 *  - first-row keeps the first row of a key and ignores later records: no DELETE, UPDATE or MERGE
 *    clauses that update or delete (Paimon forbids them too).
 *  - partial-update: UPDATE is allowed (like Paimon), but an assignment of NULL has no effect, as
 *    NULLs never overwrite. DELETE needs `partial-update.remove-record-on-delete`; without it a -D
 *    fails the merge or, with sequence groups, only clears the groups' columns.
 *  - aggregation: DELETE is allowed only with `aggregation.remove-record-on-delete`; otherwise the
 *    key would stay behind with its values retracted (sum 0, nulls), which is not a delete.
 *    UPDATE is allowed only when re-aggregating the new row replaces the old values: every
 *    assigned column's function replaces its value ([[AggregateFunction.replaces]]: last_value or
 *    last_non_null_value, with the latter an assignment of NULL has no effect), and every other
 *    non-key column's function gives the same result when fed its own current value again
 *    ([[AggregateFunction.idempotent]]). A sum, for example, would add the new value to the old one. */
object DmlRules {

  /** None when `op` is allowed, Some(reason) when it must be rejected at analysis; `updatedColumns`
   *  are the assigned columns of an UPDATE (or of MERGE's update clauses; empty means unknown, taken as
   *  every non-key column). */
  def check(
      op: DmlOperation,
      updatedColumns: Seq[String],
      fields: Seq[DataField],
      primaryKeys: Seq[String],
      partitionKeys: Seq[String],
      options: Map[String, String],
      table: String): Option[String] = {
    val engine = MergeEngine.of(options, table)
    val isDelete = op.deletes
    val isUpdate = op.updates
    val what = op.shown
    def reject(why: String): Option[String] = Some(s"$what is not supported on table $table (merge-engine $engine): $why")
    val nonKey = fields.map(_.name).filterNot(primaryKeys.contains)
    val updated = if (updatedColumns.isEmpty) nonKey else updatedColumns

    if (op == DmlOperation.InsertOverwrite) return None
    if (isUpdate) {
      val keyCols = updated.filter(c => primaryKeys.contains(c) || partitionKeys.contains(c))
      if (keyCols.nonEmpty) {
        val kind = if (primaryKeys.contains(keyCols.head)) "primary key" else "partition"
        return reject(s"column '${keyCols.head}' is a $kind column and cannot be updated")
      }
    }
    if (isDelete && CoreOptions.IgnoreDelete.ofTable(options, table))
      return reject("option 'ignore-delete' is set, so delete records are dropped and the DELETE would do nothing")

    engine match {
      case MergeEngine.Deduplicate => None
      case MergeEngine.FirstRow =>
        reject("first-row keeps the first row of each key and ignores later changes")
      case MergeEngine.PartialUpdate =>
        if (isDelete && !CoreOptions.PartialUpdateRemoveRecordOnDelete.ofTable(options, table))
          reject("partial-update removes a row on delete only with 'partial-update.remove-record-on-delete'='true'")
        else None
      case MergeEngine.Aggregation =>
        val functions = nonKey.map { c =>
          val text = options.getOrElse(s"fields.$c.${MergeFunctions.AggregateFunctionSuffix}",
            options.getOrElse(CoreOptions.DefaultAggregateFunction.key, AggregateFunction.Default.name))
          c -> (text.trim.toLowerCase, AggregateFunction.parse(text))
        }.toMap
        def named(c: String) = functions(c)._1
        def distinct(c: String) = options.get(s"fields.$c.distinct").exists(_.trim.equalsIgnoreCase("true"))
        if (isDelete) {
          if (CoreOptions.AggregationRemoveRecordOnDelete.ofTable(options, table)) None
          // retracting every column would leave the key behind with neutral values (sum 0, nulls):
          // a DELETE that does not delete is refused
          else reject("a DELETE would leave the key with retracted aggregates instead of removing it; " +
            "set 'aggregation.remove-record-on-delete'='true'")
        } else {
          updated.find(c => !functions(c)._2.exists(_.replaces)) match {
            case Some(c) => reject(s"aggregate function '${named(c)}' of column '$c' would aggregate the new value " +
                "with the old one instead of replacing it; only last_value and last_non_null_value columns can be updated")
            case None =>
              nonKey.filterNot(updated.contains).find(c => !functions(c)._2.exists(_.idempotent(distinct(c)))) match {
                case Some(c) => reject(s"the update rewrites the whole row, and aggregate function '${named(c)}' of " +
                    s"column '$c' would count the unchanged value again")
                case None => None
              }
          }
        }
    }
  }
}
