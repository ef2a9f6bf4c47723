package lamina.spark.read

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.{MetadataBuilder, StructType}

import lamina.format.FileSchemaReader
import lamina.mergetree.KeyValueReaders
import lamina.mergetree.function.MergeFunctions
import lamina.spark.SparkFilters
import lamina.table.{FileStoreTable, KeyValueLayout}
import lamina.table.options.CoreOptions
import lamina.table.scan.KeyRanges
import lamina.types.SparkTypes

/** Builds the engine's [[KeyValueReaders]] of a primary-key table from Spark's readers of its format. */
object KeyValueReaderBuilder {

  /** Readers of the table's files; `needed` (when given) names the value columns a read needs, and
   *  engines whose merge looks at no other value column (deduplicate, first-row) leave the rest
   *  unread (null). Compaction passes None: it rewrites whole records. */
  def build(spark: SparkSession, table: FileStoreTable, schemaIds: Seq[Long], keyFilters: Seq[Filter],
      needed: Option[Set[String]] = None): KeyValueReaders = {
    val full = KeyValueLayout(table.schema).fileStruct
    // columns of the trimmed primary key are read from their key columns
    val keep: Option[Set[String]] =
      needed.filter(_ => table.capabilities.mergeEngine.keepsOneWholeRecord).map(cols =>
        (cols ++ table.schema.primaryKeys ++
          CoreOptions.SequenceField.get(table.options).getOrElse(Seq.empty)) --
          table.schema.trimmedPrimaryKeys)
    val valueNames = table.schema.fieldNames.toSet
    // an unread column gets an id no file column has, so the reader fills it with null
    def unread(struct: StructType, names: String => Boolean) = StructType(struct.fields.map { f =>
      if (names(f.name))
        f.copy(metadata = new MetadataBuilder().withMetadata(f.metadata)
          .putLong(SparkTypes.FieldIdKey, -1L).build())
      else f
    })
    val current = keep match {
      case None => full
      case Some(k) => unread(full, n => valueNames.contains(n) && !k.contains(n))
    }
    // the merge reads a key from its key column: filters on key columns reach the format's reader
    // there (row groups and pages of every sorted run, each sorted by key, are skipped by range)
    // (none where deletion vectors count rows by their positions in the file)
    val onKeyColumns =
      if (table.capabilities.deletionVectors) Seq.empty
      else keyFilters.flatMap(f => SparkFilters.renamed(f, KeyValueLayout.KeyPrefix + _))
    def schemaOf(id: Long) = if (id == table.schema.id) table.schema else table.schemaManager.schema(id)
    def readersOf(struct: StructType, ids: Seq[Long], batch: Boolean) = ids.map { id =>
      val s = schemaOf(id)
      id -> DataFileReaders.forStructs(spark, table.fileIO, KeyValueLayout(s).fileStruct, struct,
        if (id == table.schema.id) onKeyColumns else Seq.empty, s, returningBatch = batch)
    }.toMap
    val readers = readersOf(current, schemaIds.distinct, batch = false)
    // batches need Spark's vectorized reader for the file's columns in every format the schema's files
    // are in, and no widened column
    val batchable = readers.collect {
      case (id, r)
          if r.sameTypes &&
            DataFileReaders.supportsBatch(spark, table, CoreOptions.fileFormats(schemaOf(id).options), r.fileColumns) => id
    }.toSeq
    val batchReaders = readersOf(current, batchable, batch = true)
    // a scan (not a compaction) may leave sequence numbers unread, see runSequences
    val withoutSequence =
      if (needed.isEmpty) Map.empty[Long, FileSchemaReader]
      else readersOf(unread(current, _ == KeyValueLayout.SequenceNumber), batchable, batch = true)
    val s = table.schema
    // a single integral key: each run is read inside the range the key filters leave
    val keyRange = s.trimmedPrimaryKeys match {
      case Seq(k) => KeyRanges.of(SparkFilters.toPredicates(keyFilters), k)
      case _ => None
    }
    KeyValueReaders(readers, batchReaders, table.mergeTree,
      MergeFunctions.factory(s.fields, s.primaryKeys, table.options, table.name),
      withoutSequence, keyRange)
  }
}
