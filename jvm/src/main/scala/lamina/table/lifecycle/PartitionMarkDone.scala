package lamina.table.lifecycle

import java.io.FileNotFoundException

import lamina.errors.BadInputException
import lamina.io.PathNames
import lamina.table.FileStoreTable
import lamina.table.compact.CompactRequest
import lamina.table.options.CoreOptions
import lamina.table.scan.FileStoreScan

/** Marks partitions of a table done (`CALL sys.mark_partition_done`), with the actions of its
 *  `partition.mark-done-action` option. Lamina has Paimon's `success-file` action: a [[SuccessFile]]
 *  in the partition's directory, written anew with its first creation time kept. The other actions
 *  (a metastore's done partitions, events, HTTP reports, custom classes) are refused by name. */
object PartitionMarkDone {
  val SuccessFileAction = "success-file"

  /** Marks every partition of the latest snapshot that one of `specs` matches ([[CompactRequest.matching]]);
   *  their directories, relative to the table's. A spec no partition matches is refused. */
  def mark(table: FileStoreTable, specs: Seq[Map[String, String]], now: Long = System.currentTimeMillis()): Seq[String] = {
    if (table.schema.partitionKeys.isEmpty) throw new BadInputException(s"Table ${table.name} is not partitioned")
    if (specs.isEmpty) throw new BadInputException("Argument 'partitions' must name at least one partition")
    val actions = CoreOptions.PartitionMarkDoneAction.getOrDefault(table.options)
    actions.filterNot(_ == SuccessFileAction).foreach { a =>
      throw new BadInputException(
        s"Cannot mark partitions of table ${table.name} done: action '$a' of option " +
          s"'${CoreOptions.PartitionMarkDoneAction.key}' is not supported; supported: $SuccessFileAction")
    }
    val partitions = table.snapshotManager.latest().toSeq
      .flatMap(s => new FileStoreScan(table, s).plan().map(_.partition).map(java.nio.ByteBuffer.wrap)).distinct
      .map(b => table.manifestStore.decodePartition(b.array()))
    specs.foreach { spec =>
      if (!partitions.exists(CompactRequest.matching(table, Seq(spec))))
        throw new BadInputException(
          s"No partition of table ${table.name} matches ${spec.map { case (k, v) => s"$k=$v" }.mkString(",")}")
    }
    val chosen = partitions.filter(CompactRequest.matching(table, specs))
    chosen.map { row =>
      val segments = table.paths.partitionSegments(row)
      val file = PathNames.child(PathNames.descendant(table.path, segments, "partition directory"), SuccessFile.Name,
        "success file")
      val previous =
        try Some(SuccessFile.fromJson(table.fileIO.readUtf8(file), file.toString))
        catch { case _: FileNotFoundException => None }
      table.fileIO.overwriteUtf8(file, previous.fold(SuccessFile(now, now))(_.touched(now)).toJson)
      segments.mkString("/")
    }
  }
}
