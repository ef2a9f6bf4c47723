package lamina.table.catalog

import lamina.table.schema.TableSchema

/** The table properties a metastore keeps beside its registration with `sync-all-properties=true`,
 *  as Paimon's catalogs write them: every table option, with `primary-key`, `partition` and
 *  `bucket-key` as comma-separated columns where the table has them. For other engines to read; the
 *  table's schema files stay its definition. */
object TableProperties {

  def of(schema: TableSchema): Map[String, String] =
    schema.options ++
      Seq("primary-key" -> schema.primaryKeys, "partition" -> schema.partitionKeys, "bucket-key" -> schema.bucketKeys)
        .collect { case (k, cols) if cols.nonEmpty => k -> cols.mkString(",") }
}
