package lamina.table

import lamina.errors.BadInputException
import lamina.table.options.{ChangelogProducer, CoreOptions, MergeEngine}
import lamina.table.schema.TableSchema

/** Which tables may have deletion vectors (Paimon's rules), and when a table may change to or from
 *  having them. */
object DeletionVectorRules {

  /** Refuses a definition Paimon refuses: deletion vectors with a changelog producer other than none,
   *  input or lookup, or on a first-row table (which never deletes an older row). */
  def check(s: TableSchema, table: String): Unit = {
    if (!CoreOptions.DeletionVectorsEnabled.getOrDefault(s.options)) return
    val producer = CoreOptions.ChangelogProducer.getOrDefault(s.options)
    if (producer == ChangelogProducer.FullCompaction)
      throw new BadInputException(s"Table $table: deletion vectors ('deletion-vectors.enabled' = 'true') work only " +
        s"with changelog-producer none, input or lookup, not '$producer'")
    if (s.primaryKeys.nonEmpty && MergeEngine.of(s.options, table).keepsFirstRecord)
      throw new BadInputException(s"Table $table: merge-engine 'first-row' takes no deletion vectors " +
        "('deletion-vectors.enabled' = 'true'): it never deletes an older row (its reads already skip level 0)")
  }

  /** Whether a bucket's deletion vectors roll over into several index files at
   *  `deletion-vector.index-file.target-size`: only in a bucket-unaware append table, as Paimon's writers
   *  do. Every other table keeps one index file per (partition, bucket): Paimon's commits keep one
   *  deletion-vector entry per bucket of such a table, so a second file's entry, and its vectors, would
   *  be dropped by the next Paimon commit that changes any index of the table. */
  def rollsIndexFiles(s: TableSchema): Boolean = s.primaryKeys.isEmpty && s.numBuckets == -1

  /** Refuses turning deletion vectors on or off for a primary-key table that holds data files: its
   *  readers would read files of another layout as if they were of this one (with them, each key lives
   *  in one file above level 0; without them, the vectors would be ignored). */
  def checkChange(table: FileStoreTable, next: TableSchema): Unit = {
    val was = CoreOptions.DeletionVectorsEnabled.getOrDefault(table.schema.options)
    val will = CoreOptions.DeletionVectorsEnabled.getOrDefault(next.options)
    if (was == will) return
    val hasData = table.holdsDataFiles
    val hasVectors = table.snapshotManager.latest().exists(_.indexManifest.isDefined)
    if ((table.isPrimaryKeyTable && hasData) || (was && hasVectors))
      throw new BadInputException(s"Cannot ${if (will) "enable" else "disable"} deletion vectors " +
        s"('deletion-vectors.enabled') of table ${table.name}: it holds data files written " +
        s"${if (was) "with" else "without"} them. Create a new table with the option and copy the rows " +
        "(INSERT INTO new SELECT * FROM old), or TRUNCATE the table first.")
  }
}
