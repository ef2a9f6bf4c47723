package lamina.api

import lamina.table.catalog.Metastore
import lamina.table.compact.{FileIndexRewrite, FileIndexTasks}

/** The file indexes of a table's existing data files: `CALL sys.rewrite_file_index` and the Python API. */
object FileIndexes {

  /** Gives the live data files of `table` (of the partitions the SQL condition `where` selects; blank:
   *  all) the file indexes its options ask for now, in one commit ([[FileIndexRewrite]]). `tasks` is
   *  where the files are read. */
  def rewrite(warehouse: Metastore, table: String, where: String, tasks: FileIndexTasks): FileIndexRewrite.Result = {
    val t = warehouse.loadTable(table)
    val filter = Option(where).map(_.trim).filter(_.nonEmpty).map(tasks.partitionsWhere(t, _))
    val plan = FileIndexRewrite.plan(t, filter)
    FileIndexRewrite.commit(plan, tasks.rewrite(plan))
  }
}
