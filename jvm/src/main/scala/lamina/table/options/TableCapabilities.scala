package lamina.table.options

/** What a table does, resolved once from its options (its own, plus a read's or write's dynamic
 *  options) through the registry: the questions that decide reads, writes and compactions are asked
 *  here, not by reading options where the decision is made. Pure: no files, no Spark. */
final case class TableCapabilities(
    primaryKey: Boolean,
    mergeEngine: MergeEngine,
    deletionVectors: Boolean,
    deletionVectorsMergeOnRead: Boolean,
    changelogProducer: ChangelogProducer,
    writeOnly: Boolean) {

  /** Readers read each file above level 0 on its own with its deletion vector applied, without
   *  merging, and skip level 0: deletion vectors, unless `deletion-vectors.merge-on-read`. */
  def readsWithoutMerging: Boolean = deletionVectors && !deletionVectorsMergeOnRead

  /** Readers skip level 0, as Paimon's do: first-row tables (level 0 becomes visible by full
   *  compaction), and tables read without merging ([[readsWithoutMerging]]). */
  def skipsLevel0: Boolean = mergeEngine.keepsFirstRecord || readsWithoutMerging

  /** Compaction is lookup compaction (each key's older row looked up in the levels left alone): a
   *  primary-key table with deletion vectors, or the lookup changelog producer. */
  def looksUp: Boolean = primaryKey && (deletionVectors || changelogProducer == ChangelogProducer.Lookup)

  /** A primary-key table's write must compact the buckets it touched before its rows are visible:
   *  readers skip level 0, and (for lookup compaction) `write-only` does not leave it to a later
   *  `CALL sys.compact`. */
  def compactionMakesWritesVisible: Boolean = primaryKey && skipsLevel0 && !(deletionVectors && writeOnly)
}

object TableCapabilities {

  /** The capabilities of table `table` with these options; a bad value fails naming the table. */
  def of(options: Map[String, String], primaryKey: Boolean, table: String): TableCapabilities =
    TableCapabilities(
      primaryKey = primaryKey,
      mergeEngine = MergeEngine.of(options, table),
      deletionVectors = CoreOptions.DeletionVectorsEnabled.getOrDefault(options),
      deletionVectorsMergeOnRead = CoreOptions.DeletionVectorsMergeOnRead.getOrDefault(options),
      changelogProducer = CoreOptions.ChangelogProducer.getOrDefault(options),
      writeOnly = CoreOptions.WriteOnly.getOrDefault(options))
}
