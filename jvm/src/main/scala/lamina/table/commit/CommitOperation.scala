package lamina.table.commit

/** What a commit did, finer than Paimon's commit kind (APPEND, OVERWRITE, COMPACT): stored in the
 *  snapshot's `properties` map (Paimon's field, which its readers carry and ignore) under [[Key]], and
 *  shown as `$snapshots.operation`. A snapshot without it (Paimon's writers, Lamina's compactions)
 *  shows what its commit kind says ([[ofKind]]). */
sealed abstract class CommitOperation(val name: String) {
  def properties: Map[String, String] = Map(CommitOperation.Key -> name)
}

object CommitOperation {
  val Key = "lamina.operation"

  case object Write extends CommitOperation("WRITE")
  case object Overwrite extends CommitOperation("OVERWRITE")
  case object Delete extends CommitOperation("DELETE")
  case object Update extends CommitOperation("UPDATE")
  case object Merge extends CommitOperation("MERGE")
  case object Truncate extends CommitOperation("TRUNCATE")
  case object DropPartition extends CommitOperation("DROP PARTITION")
  case object ExpirePartitions extends CommitOperation("EXPIRE PARTITIONS")
  case object Compact extends CommitOperation("COMPACT")
  case object CompactManifests extends CommitOperation("COMPACT MANIFESTS")
  case object Rescale extends CommitOperation("RESCALE")
  case object RewriteFileIndex extends CommitOperation("REWRITE FILE INDEX")

  /** The operation a snapshot's properties name, else the one its commit kind implies. Pure. */
  def of(properties: Map[String, String], commitKind: String): String =
    properties.getOrElse(Key, ofKind(commitKind))

  def ofKind(commitKind: String): String = commitKind match {
    case "APPEND" => Write.name
    case other => other
  }
}
