package lamina.spark

import java.util

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.SupportsPartitionManagement
import org.apache.spark.sql.types.StructType

import lamina.errors.BadInputException
import lamina.table.FileStoreTable
import lamina.table.commit.CommitOperation
import lamina.table.options.TableOperation
import lamina.table.sink.TableWriter
import lamina.types.SparkTypes

/** Spark's partition management for a Lamina table: `SHOW PARTITIONS` lists the partitions that hold
 *  live files at the table's snapshot; `ALTER TABLE ... DROP PARTITION` removes every file of a
 *  partition in one OVERWRITE snapshot (as Paimon's drop partition commits); `ADD PARTITION` is refused,
 *  since a partition exists while it holds rows. Partition values are Spark's internal values of the
 *  partition columns' types. */
trait PartitionManagement extends SupportsPartitionManagement {
  protected def managedTable: FileStoreTable
  protected def readTable: FileStoreTable
  protected def pinnedSnapshotId: Option[Long]
  protected def displayName: String
  protected def checkWritable(): Unit

  override def partitionSchema(): StructType = {
    val user = LaminaTable.userSchema(readTable.schema.fields)
    StructType(readTable.schema.partitionKeys.map(user(_)))
  }

  private def sparkTypes(t: FileStoreTable) = t.schema.partitionTypes.map(SparkTypes.toSpark)

  /** The distinct partitions holding live files at the read snapshot. */
  private def livePartitions(t: FileStoreTable, snapshotId: Option[Long]): Seq[InternalRow] = {
    val snapshot = snapshotId.map(t.snapshotManager.snapshot).orElse(t.snapshotManager.latest())
    val types = sparkTypes(t)
    snapshot.toSeq.flatMap(s => t.snapshotEntries.live(s)).map(e => java.nio.ByteBuffer.wrap(e.partition)).distinct
      .map(b => t.manifestStore.decodePartition(b.array())).map(r =>
        InternalRow.fromSeq(types.indices.map(i => r.get(i, types(i)))))
  }

  private def same(a: InternalRow, b: InternalRow, t: FileStoreTable, names: Array[String]): Boolean = {
    val keys = t.schema.partitionKeys
    val types = sparkTypes(t)
    names.indices.forall { j =>
      val i = keys.indexOf(names(j))
      val (x, y) = (a.get(i, types(i)), b.get(j, types(i)))
      x == y || (x != null && x.equals(y))
    }
  }

  override def listPartitionIdentifiers(names: Array[String], ident: InternalRow): Array[InternalRow] = {
    val unknown = names.filterNot(readTable.schema.partitionKeys.contains)
    if (unknown.nonEmpty)
      throw new BadInputException(s"Table $displayName has no partition column ${unknown.mkString("'", "', '", "'")}")
    livePartitions(readTable, pinnedSnapshotId).filter(p => same(p, ident, readTable, names)).toArray
  }

  /** ADD PARTITION succeeds and changes nothing, as with Paimon's filesystem catalog: a partition
   *  exists while it holds rows (Paimon's format has no empty partitions), so it appears once rows are
   *  written into it. */
  override def createPartition(ident: InternalRow, properties: util.Map[String, String]): Unit = checkWritable()

  override def dropPartition(ident: InternalRow): Boolean = {
    checkWritable()
    val names = managedTable.schema.partitionKeys.toArray
    val exists = livePartitions(managedTable, None).exists(p => same(p, ident, managedTable, names))
    if (exists) {
      val types = sparkTypes(managedTable)
      val target = InternalRow.fromSeq(types.indices.map(i => ident.get(i, types(i))))
      TableWriter.commitOverwrite(managedTable, Seq.empty, Some(row => same(row, target, managedTable, names)),
        operation = CommitOperation.DropPartition)
    }
    exists
  }

  override def replacePartitionMetadata(ident: InternalRow, properties: util.Map[String, String]): Unit =
    throw new BadInputException(s"Table $displayName keeps no metadata of its own per partition")

  override def loadPartitionMetadata(ident: InternalRow): util.Map[String, String] = util.Map.of()
}
