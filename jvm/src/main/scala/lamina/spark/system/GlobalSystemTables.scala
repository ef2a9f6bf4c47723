package lamina.spark.system

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.Table
import org.apache.spark.sql.types.{StringType, StructField, StructType}
import org.apache.spark.unsafe.types.UTF8String

import lamina.table.catalog.Metastore

/** The catalog-wide metadata tables of the `sys` database, with Apache Paimon's names and columns:
 *  `sys.all_table_options` (every table's options: database_name, table_name, key, value) and
 *  `sys.catalog_options` (the catalog's own options: key, value). */
object GlobalSystemTables {
  val Database = "sys"
  val Names: Seq[String] = Seq("all_table_options", "catalog_options")

  def isGlobal(namespace: Array[String], name: String): Boolean =
    namespace.sameElements(Array(Database)) && Names.contains(name.toLowerCase)

  def load(name: String, warehouse: Metastore, catalogOptions: Map[String, String], display: String): Table =
    name.toLowerCase match {
      case "all_table_options" => table(display, AllTableOptionsSchema, () => allTableOptions(warehouse))
      case "catalog_options" =>
        table(display, CatalogOptionsSchema,
          () => catalogOptions.toSeq.sortBy(_._1).map { case (k, v) => InternalRow(str(k), str(v)) })
    }

  /** One row per option of the latest schema of every table, ordered by database, table and key. */
  private def allTableOptions(warehouse: Metastore): Seq[InternalRow] =
    for {
      db <- warehouse.listDatabases().sorted
      t <- warehouse.listTables(db).sorted
      (k, v) <- warehouse.loadTable(db, t).schema.options.toSeq.sortBy(_._1)
    } yield InternalRow(str(db), str(t), str(k), str(v))

  private def table(display: String, s: StructType, f: () => Seq[InternalRow]): Table =
    new SystemTableBase(display) {
      override def schema(): StructType = s
      override def rows(): Seq[InternalRow] = f()
    }

  private def str(s: String): UTF8String = UTF8String.fromString(s)

  val AllTableOptionsSchema: StructType = StructType(
    Seq("database_name", "table_name", "key", "value").map(StructField(_, StringType, nullable = false)))
  val CatalogOptionsSchema: StructType =
    StructType(Seq("key", "value").map(StructField(_, StringType, nullable = false)))
}
