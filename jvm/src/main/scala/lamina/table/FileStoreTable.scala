package lamina.table

import org.apache.hadoop.fs.Path

import lamina.io.FileIO
import lamina.table.manifest.ManifestStore
import lamina.table.options.CoreOptions
import lamina.table.schema.{SchemaManager, TableSchema}
import lamina.table.snapshot.SnapshotManager

/** A table on storage at one schema: its path, schema, managers and paths. Cheap to create;
 *  serializable so executors can write and read its files.
 *  Invariant: `schema` is a committed schema file of this table. */
final case class FileStoreTable(fileIO: FileIO, path: Path, name: String, schema: TableSchema) {
  def options: Map[String, String] = schema.options
  def snapshotManager: SnapshotManager = new SnapshotManager(fileIO, path, name)
  def schemaManager: SchemaManager = new SchemaManager(fileIO, path, name)
  def paths: FileStorePaths = new FileStorePaths(path, schema.partitionKeys, schema.partitionTypes,
    CoreOptions.PartitionDefaultName.getOrDefault(options))
  def manifestStore: ManifestStore = new ManifestStore(fileIO, paths,
    CoreOptions.ManifestCompression.getOrDefault(options), schema.partitionTypes)
  def isPrimaryKeyTable: Boolean = schema.primaryKeys.nonEmpty
  def numBuckets: Int = schema.numBuckets
  def fileFormat: String = CoreOptions.FileFormat.getOrDefault(options)

  /** The same table at another committed schema (used for time travel to older snapshots). */
  def withSchema(s: TableSchema): FileStoreTable = copy(schema = s)
}
