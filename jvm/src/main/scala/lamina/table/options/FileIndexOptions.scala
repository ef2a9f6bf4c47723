package lamina.table.options

import lamina.errors.BadInputException
import lamina.format.fileindex.{BitmapIndex, BitmapKey, BloomFilterIndex, FastHash, FileIndexSpec}
import lamina.types.DataField

/** The file indexes a table's options ask for ([[CoreOptions.FileIndexBloomFilterColumns]] with the
 *  per-column `file-index.bloom-filter.<column>.fpp` / `.items`, [[CoreOptions.FileIndexBitmapColumns]]
 *  with `file-index.bitmap.<column>.version` / `.index-block-size`), resolved against its columns. */
object FileIndexOptions {

  /** The per-column settings of an index type, accepted beside the registry's keys. */
  val ColumnKey: scala.util.matching.Regex =
    """^file-index\.(bloom-filter\.[^.]+\.(fpp|items)|bitmap\.[^.]+\.(version|index-block-size))$""".r

  /** The key naming the columns of one index type: `file-index.<type>.columns`. */
  private val ColumnsKey = """^file-index\.([^.]+)\.columns$""".r

  /** Every column some `file-index.<type>.columns` option names, whatever the type (Paimon's `bsi` and
   *  `range-bitmap` too, which Lamina does not write: a rewrite of a file's index keeps them). */
  def namedColumns(options: Map[String, String]): Set[String] = options.toSeq.collect {
    case (ColumnsKey(_), v) => v.split(',').map(_.trim).filter(_.nonEmpty).toSeq
  }.flatten.toSet

  /** The indexes of `table`'s data files with these columns, None when it asks for none; a
   *  [[BadInputException]] for a column that does not exist, has a type the index does not take, or a
   *  setting out of range. */
  def spec(options: Map[String, String], fields: Seq[DataField], table: String): Option[FileIndexSpec] = {
    def setting[T](indexType: String, column: String, name: String, default: T, expected: String)(
        parse: String => Option[T]): T = {
      val key = s"file-index.$indexType.$column.$name"
      options.get(key).map(v =>
        parse(v).getOrElse(
          throw new BadInputException(s"Table $table: option '$key' = '$v' is not valid (expected $expected)")))
        .getOrElse(default)
    }
    def columns(indexType: String, option: OptionDef[Seq[String]], takes: DataField => Boolean, what: String) =
      option.get(options).getOrElse(Nil).distinct.map { c =>
        val i = fields.indexWhere(_.name == c)
        if (i < 0) throw new BadInputException(
          s"Table $table: file-index.$indexType.columns names column '$c', which the table does not have")
        if (!takes(fields(i))) throw new BadInputException(
          s"Table $table: file-index.$indexType.columns names column '$c' of type ${fields(i).dataType}, which $what do not index")
        (c, i, fields(i).dataType)
      }
    val blooms = columns("bloom-filter", CoreOptions.FileIndexBloomFilterColumns, f => FastHash.of(f.dataType).isDefined,
      "bloom filters").map { case (c, i, t) =>
      FileIndexSpec.BloomColumn(c, i, t,
        setting("bloom-filter", c, "items", BloomFilterIndex.DefaultItems.toLong, "an integer of at least 1")(
          _.toLongOption.filter(_ >= 1)),
        setting("bloom-filter", c, "fpp", BloomFilterIndex.DefaultFpp, "a probability between 0 and 1")(
          _.toDoubleOption.filter(p => p > 0 && p < 1)))
    }
    val bitmaps = columns("bitmap", CoreOptions.FileIndexBitmapColumns, f => BitmapKey.of(f.dataType).isDefined,
      "bitmap indexes").map { case (c, i, t) =>
      FileIndexSpec.BitmapColumn(c, i, t,
        setting("bitmap", c, "version", BitmapIndex.Version2, "1 or 2")(
          _.toIntOption.filter(v => v == BitmapIndex.Version1 || v == BitmapIndex.Version2)),
        setting("bitmap", c, "index-block-size", BitmapIndex.DefaultBlockSize, "a memory size of at least 1 b")(
          OptionKind.MemorySizeKind.parse(_).toOption.filter(_ >= 1)))
    }
    if (blooms.isEmpty && bitmaps.isEmpty) None
    else Some(FileIndexSpec(blooms, CoreOptions.FileIndexInManifestThreshold.getOrDefault(options), bitmaps))
  }

  /** The Parquet page version of `options`' table: as set, else v1 where the table has bitmap indexes.
   *  Paimon's reader selects the rows a bitmap index names inside a file, and in 1.4 it skips wrongly
   *  within delta-encoded (v2) pages, returning other rows' values; v1 pages it reads right. */
  def parquetWriterVersion(options: Map[String, String]): ParquetWriterVersion =
    CoreOptions.ParquetWriterVersion.explicit(options).getOrElse(
      if (CoreOptions.FileIndexBitmapColumns.get(options).exists(_.nonEmpty)) ParquetWriterVersion.V1
      else CoreOptions.ParquetWriterVersion.getOrDefault(options))
}
