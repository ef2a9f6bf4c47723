package lamina.table.compact

import org.apache.spark.sql.catalyst.InternalRow

import lamina.errors.BadInputException
import lamina.table.{FileStoreTable, PartitionValues}
import lamina.table.bucket.PostponeAssignment
import lamina.table.catalog.Metastore
import lamina.table.commit.FileStoreCommit
import lamina.table.options.{CoreOptions, TableOperation}
import lamina.table.sort.{OrderStrategy, SortKey}

/** A compaction asked for by `CALL sys.compact`, `lamina.jobs.Compact` or the Python API: the
 *  table (`db.t`), the partitions (each a map of column to value text; empty = all) or a `where`
 *  condition on partition columns (evaluated by the tasks' engine), whether to compact fully, and for
 *  append tables how to order the rewritten rows (`order_strategy` over `order_by`). A table is
 *  compacted by [[Compactor]] (an append table's files by [[lamina.table.compact.AppendCompaction]]),
 *  a postpone-bucket table's waiting rows first assigned to buckets ([[PostponeAssignment]]);
 *  an order sorts an append table by [[SortCompaction]]. */
final case class CompactRequest(table: String, partitions: Seq[Map[String, String]], full: Boolean,
    orderStrategy: OrderStrategy = OrderStrategy.NoOrder, orderBy: String = "", where: Option[String] = None) {
  def run(warehouse: Metastore, tasks: CompactTasks, appendTasks: AppendCompactTasks): Option[Long] = {
    val t = warehouse.loadTable(table)
    t.require(TableOperation.Compact)
    if (partitions.nonEmpty && where.nonEmpty)
      throw new BadInputException("Arguments 'partitions' and 'where' cannot be used together; give one of them")
    val sortKey =
      SortKey.of(t.schema, table, orderStrategy, orderBy, CoreOptions.ZOrderVarLengthContribution.getOrDefault(t.options))
    val filter: Option[InternalRow => Boolean] =
      if (where.nonEmpty) Some(tasks.partitionsWhere(t, where.get))
      else if (partitions.isEmpty) None
      else Some(CompactRequest.matching(t, partitions))
    // rows waiting in bucket-postpone go to their buckets first, as a write's would (with the
    // compaction a write gets: first-row and deletion-vector readers skip level 0), then the buckets compact
    val assigned =
      if (!t.hasPostponeBuckets) None
      else {
        val plan = PostponeAssignment.plan(t, filter.getOrElse(_ => true), tasks.parallelism)
        if (plan.isEmpty) None
        else {
          val written = tasks.assign(plan)
          val committed = PostponeAssignment.commit(plan, written)
          committed.foreach(id => CompactAfterWrite.afterCommit(t, written, FileStoreCommit.newUser(), id, tasks))
          committed
        }
      }
    val compacted = sortKey match {
      case Some(key) => SortCompaction.sort(t, key, filter, appendTasks)
      case None => Compactor.compactBuckets(t, None, full, FileStoreCommit.newUser(), tasks, filter)
    }
    compacted.orElse(assigned)
  }
}

object CompactRequest {

  /** Whether a partition (its internal row) matches one of `specs`: each value given equals the text
   *  of the partition's value in its directory name. A column that is not a partition column of `t`
   *  is refused. */
  def matching(t: FileStoreTable, specs: Seq[Map[String, String]]): InternalRow => Boolean = {
    val keys = t.schema.partitionKeys
    val types = t.schema.partitionTypes
    specs.flatMap(_.keys).distinct.foreach { k =>
      if (!keys.contains(k))
        throw new BadInputException(
          s"'$k' is not a partition column of table ${t.name}; partition columns are ${keys.mkString(", ")}")
    }
    row =>
      specs.exists(spec =>
        spec.forall { case (k, v) =>
          val i = keys.indexOf(k)
          Option(PartitionValues.toPathString(row, i, types(i))).contains(v)
        })
  }

  /** `k=v,k2=v2;k=v3` into one map per partition; blank means all partitions. */
  def parsePartitions(text: String): Seq[Map[String, String]] =
    text.split(";").map(_.trim).filter(_.nonEmpty).toSeq.map { spec =>
      spec.split(",").map(_.trim).filter(_.nonEmpty).map { kv =>
        val i = kv.indexOf('=')
        if (i <= 0) throw new BadInputException(s"Partition '$spec' must be written as column=value[,column=value]")
        kv.substring(0, i).trim -> kv.substring(i + 1).trim
      }.toMap
    }
}
