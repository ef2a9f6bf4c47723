package lamina.format.fileindex

import org.apache.spark.sql.catalyst.InternalRow

import lamina.types.{DataType, SparkTypes}

/** Which file indexes a table's data files carry, resolved once from its options and schema and
 *  carried to the executors: the bloom-filtered columns (with their sizing) and the bitmap-indexed
 *  ones (with their format version and block size), each by ordinal in the rows written, and the size
 *  up to which a file's index is embedded in its manifest entry. */
final case class FileIndexSpec(bloomFilters: Seq[FileIndexSpec.BloomColumn], inManifestThreshold: Long,
    bitmaps: Seq[FileIndexSpec.BitmapColumn] = Nil)
  extends Serializable {

  def isEmpty: Boolean = bloomFilters.isEmpty && bitmaps.isEmpty

  /** A collector of the next file's indexes. */
  def newWriter(): DataFileIndexWriter = new DataFileIndexWriter(this)
}

object FileIndexSpec {
  final case class BloomColumn(name: String, ordinal: Int, dataType: DataType, items: Long, fpp: Double)
  final case class BitmapColumn(name: String, ordinal: Int, dataType: DataType,
      version: Int = BitmapIndex.Version2, blockSize: Long = BitmapIndex.DefaultBlockSize)
}

/** Collects one data file's indexes from the rows written to it, and encodes them ([[FileIndexFile]]:
 *  the columns in the order first named, bloom filters before bitmaps, a column's types in that order).
 *  Not thread-safe: one per open file. */
final class DataFileIndexWriter(spec: FileIndexSpec) {
  private val blooms = spec.bloomFilters.map { c =>
    val hash = FastHash.of(c.dataType).getOrElse(
      throw new IllegalArgumentException(s"no bloom filter for column ${c.name} of type ${c.dataType}"))
    (c, BloomFilterIndex.create(c.items, c.fpp), hash, SparkTypes.toSpark(c.dataType))
  }
  private val bitmaps = spec.bitmaps.map { c =>
    val keys = BitmapKey.of(c.dataType).getOrElse(
      throw new IllegalArgumentException(s"no bitmap index for column ${c.name} of type ${c.dataType}"))
    (c, new BitmapIndex.Writer(keys, c.version, c.blockSize), SparkTypes.toSpark(c.dataType))
  }

  def update(row: InternalRow): Unit = {
    blooms.foreach { case (c, filter, hash, sparkType) =>
      if (!row.isNullAt(c.ordinal)) filter.add(hash(row.get(c.ordinal, sparkType)))
    }
    bitmaps.foreach { case (c, w, sparkType) => w.add(if (row.isNullAt(c.ordinal)) null else row.get(c.ordinal, sparkType)) }
  }

  /** The file's indexes, by column (in the order first named) and index type, as [[FileIndexFile.encode]] takes them. */
  def indexes(): Seq[(String, Seq[(String, Option[Array[Byte]])])] = {
    val all = blooms.map { case (c, filter, _, _) => c.name -> (BloomFilterIndex.IndexType -> Some(filter.encode())) } ++
      bitmaps.map { case (c, w, _) => c.name -> (BitmapIndex.IndexType -> Some(w.encode())) }
    all.map(_._1).distinct.map(c => c -> all.filter(_._1 == c).map(_._2))
  }

  /** The file's index, and whether it goes into the manifest (true) or into a file of its own. */
  def result(): (Array[Byte], Boolean) = {
    val bytes = FileIndexFile.encode(indexes())
    (bytes, bytes.length <= spec.inManifestThreshold)
  }
}

/** Where the file index of data file `name` goes when it is not embedded: `<name>.index` beside it. */
object DataFileIndexWriter {
  val Suffix = ".index"
  def indexFileName(dataFile: String): String = dataFile + Suffix

  /** The name of the index file that replaces index file `name` (Paimon's numbering, so that the
   *  replaced file stays for the snapshots that refer to it): `<data file>.index` becomes
   *  `<data file>-1.index`, and `<...>-<n>.index` becomes `<...>-<n+1>.index`. Pure. */
  def nextIndexFileName(name: String): String = {
    val stem = name.stripSuffix(Suffix)
    val dash = stem.lastIndexOf('-')
    stem.substring(dash + 1).toIntOption.filter(_ => dash >= 0) match {
      case Some(n) => stem.substring(0, dash + 1) + (n + 1) + Suffix
      case None => stem + "-1" + Suffix
    }
  }
}
