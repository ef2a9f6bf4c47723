package lamina.table.options

import lamina.errors.BadInputException
import lamina.format.fileindex.{BloomFilterIndex, FastHash, FileIndexSpec}
import lamina.types.DataField

/** The file indexes a table's options ask for ([[CoreOptions.FileIndexBloomFilterColumns]] and the
 *  per-column `file-index.bloom-filter.<column>.fpp` / `.items`), resolved against its columns. */
object FileIndexOptions {

  /** The per-column settings of an index type, accepted beside the registry's keys. */
  val ColumnKey: scala.util.matching.Regex = """^file-index\.bloom-filter\.[^.]+\.(fpp|items)$""".r

  /** The indexes of `table`'s data files with these columns, None when it asks for none; a
   *  [[BadInputException]] for a column that does not exist, has a type no bloom filter takes, or a
   *  sizing out of range. */
  def spec(options: Map[String, String], fields: Seq[DataField], table: String): Option[FileIndexSpec] = {
    val columns = CoreOptions.FileIndexBloomFilterColumns.get(options).getOrElse(Nil)
    if (columns.isEmpty) return None
    def setting[T](column: String, name: String, default: T)(parse: String => Option[T]): T = {
      val key = s"file-index.bloom-filter.$column.$name"
      options.get(key).map(v =>
        parse(v).getOrElse(
          throw new BadInputException(s"Table $table: option '$key' = '$v' is not valid " +
            (if (name == "fpp") "(expected a probability between 0 and 1)" else "(expected an integer of at least 1)"))))
        .getOrElse(default)
    }
    val blooms = columns.distinct.map { c =>
      val i = fields.indexWhere(_.name == c)
      if (i < 0) throw new BadInputException(
        s"Table $table: file-index.bloom-filter.columns names column '$c', which the table does not have")
      val t = fields(i).dataType
      if (FastHash.of(t).isEmpty) throw new BadInputException(
        s"Table $table: file-index.bloom-filter.columns names column '$c' of type $t, which bloom filters do not index")
      FileIndexSpec.BloomColumn(c, i, t,
        setting(c, "items", BloomFilterIndex.DefaultItems.toLong)(_.toLongOption.filter(_ >= 1)),
        setting(c, "fpp", BloomFilterIndex.DefaultFpp)(_.toDoubleOption.filter(p => p > 0 && p < 1)))
    }
    Some(FileIndexSpec(blooms, CoreOptions.FileIndexInManifestThreshold.getOrDefault(options)))
  }
}
