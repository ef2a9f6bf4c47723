package lamina.spark.procedures

import org.apache.spark.sql.connector.catalog.Identifier
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure

import lamina.errors.NotFoundException
import lamina.spark.LaminaCatalog

/** The `CALL <catalog>.sys.<name>(...)` procedures this catalog offers. */
object Procedures {
  private val registry: Map[String, LaminaCatalog => UnboundProcedure] = Map(
    "compact" -> (c => new CompactProcedure(c)),
    "expire_snapshots" -> (c => new ExpireSnapshotsProcedure(c)),
    "expire_changelogs" -> (c => new ExpireChangelogsProcedure(c)),
    "create_tag" -> (c => new CreateTagProcedure(c, replace = false)),
    "replace_tag" -> (c => new CreateTagProcedure(c, replace = true)),
    "create_tag_from_timestamp" -> (c => new CreateTagFromTimestampProcedure(c)),
    "delete_tag" -> (c => new DeleteTagProcedure(c)),
    "expire_tags" -> (c => new ExpireTagsProcedure(c)),
    "rename_tag" -> (c => new RenameTagProcedure(c)),
    "rollback" -> (c => new RollbackProcedure(c)),
    "rollback_to_timestamp" -> (c => new RollbackToTimestampProcedure(c)),
    "remove_orphan_files" -> (c => new RemoveOrphanFilesProcedure(c)),
    "create_branch" -> (c => new CreateBranchProcedure(c)),
    "delete_branch" -> (c => new DeleteBranchProcedure(c)),
    "fast_forward" -> (c => new FastForwardProcedure(c)),
    "expire_partitions" -> (c => new ExpirePartitionsProcedure(c)),
    "reset_consumer" -> (c => new ResetConsumerProcedure(c)),
    "compact_manifest" -> (c => new CompactManifestProcedure(c)),
    "mark_partition_done" -> (c => new MarkPartitionDoneProcedure(c)),
    "rescale" -> (c => new RescaleProcedure(c)),
    "rewrite_file_index" -> (c => new RewriteFileIndexProcedure(c)),
    "purge_files" -> (c => new PurgeFilesProcedure(c)))

  def load(ident: Identifier, catalog: LaminaCatalog): UnboundProcedure = {
    val ns = ident.namespace().mkString(".")
    registry.get(ident.name().toLowerCase).filter(_ => ns.equalsIgnoreCase("sys")).map(_(catalog)).getOrElse(
      throw new NotFoundException(
        s"Procedure $ns.${ident.name()} does not exist" +
          (if (registry.isEmpty) "" else s"; available: ${registry.keys.toSeq.sorted.map("sys." + _).mkString(", ")}")))
  }
}
