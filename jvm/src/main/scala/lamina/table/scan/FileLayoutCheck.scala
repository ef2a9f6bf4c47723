package lamina.table.scan

import lamina.errors.CorruptFileException
import lamina.format.BinaryRowCodec
import lamina.table.FileStoreTable
import lamina.table.manifest.ManifestEntry

/** Checks, before any data file is opened, that the files of a snapshot have the layout the
 *  schema says: a primary-key table's files carry its key (`_KEY_<k>` columns, whose arity the
 *  manifest records with each file's key range), an append table's carry none. A schema whose
 *  primary key was lost would otherwise read key-value files as plain rows, old versions and deletes
 *  included. */
object FileLayoutCheck {
  def check(table: FileStoreTable, entries: Seq[ManifestEntry]): Unit = {
    val schemaPath = table.schemaManager.schemaPath(table.schema.id)
    val expected = if (table.isPrimaryKeyTable) table.schema.trimmedPrimaryKeys.size else 0
    entries.iterator.filter(_.isAdd).foreach { e =>
      val arity =
        try BinaryRowCodec.serializedArity(e.file.minKey)
        catch { case _: Exception => -1 }
      val matches = if (expected == 0) arity <= 0 else arity == expected || arity < 0
      if (!matches)
        throw new CorruptFileException(schemaPath.toString, -1,
          if (expected == 0) "a table without primary key, as its data files are not"
          else s"a primary key of $expected columns, as its data files' keys have",
          s"data file ${e.file.fileName} (bucket ${e.bucket}) with a key of $arity columns",
          s"schema ${table.schema.id} of table ${table.name}")
    }
  }
}
