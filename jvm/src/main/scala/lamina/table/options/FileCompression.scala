package lamina.table.options

/** The compression codec of data files (option [[CoreOptions.FileCompression]], Paimon's names). */
sealed abstract class FileCompression(name: String) extends EnumValue(name)

object FileCompression {
  case object Zstd extends FileCompression("zstd")
  case object Snappy extends FileCompression("snappy")
  case object Lz4 extends FileCompression("lz4")
  case object Gzip extends FileCompression("gzip")

  /** No compression; [[Uncompressed]] is another name for the same. */
  case object None extends FileCompression("none")
  case object Uncompressed extends FileCompression("uncompressed")

  val All: Seq[FileCompression] = Seq(Zstd, Snappy, Lz4, Gzip, None, Uncompressed)
}
