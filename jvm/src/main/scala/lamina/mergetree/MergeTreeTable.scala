package lamina.mergetree

import lamina.io.FileIO
import lamina.lookup.LookupOptions
import lamina.table.KeyValueLayout
import lamina.table.options.{CoreOptions, TableCapabilities}

/** What the merge tree's readers and lookups know of their table, resolved once per table version
 *  (on the driver, from the table: `FileStoreTable.mergeTree`) and carried to the executors: its name
 *  and path for messages and cache keys, its file IO, its key layout (schema and key columns), its
 *  capabilities, and the lookup store's settings. The merge tree gets this, never the table or its
 *  options. */
final case class MergeTreeTable(
    name: String,
    path: String,
    fileIO: FileIO,
    layout: KeyValueLayout,
    capabilities: TableCapabilities,
    lookupStore: LookupOptions,
    lookupMaxDiskSize: Long,
    lookupFileRetentionMillis: Long)
  extends Serializable {

  /** The schema the table's rows are read in. */
  def schema = layout.schema
}

object MergeTreeTable {

  /** The merge tree's view of table `name` at `path` with this layout, capabilities and options. */
  def of(name: String, path: String, fileIO: FileIO, layout: KeyValueLayout, capabilities: TableCapabilities,
      options: Map[String, String]): MergeTreeTable =
    MergeTreeTable(name, path, fileIO, layout, capabilities, CoreOptions.lookupStore(options),
      CoreOptions.LookupCacheMaxDiskSize.getOrDefault(options), CoreOptions.LookupCacheFileRetention.getOrDefault(options))
}
