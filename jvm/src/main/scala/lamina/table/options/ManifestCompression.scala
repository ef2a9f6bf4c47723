package lamina.table.options

/** The Avro codec of manifest and manifest-list files (option [[CoreOptions.ManifestCompression]]),
 *  named as Avro names them in a file's header. */
sealed abstract class ManifestCompression(name: String) extends EnumValue(name)

object ManifestCompression {
  case object Zstd extends ManifestCompression("zstd")
  case object Deflate extends ManifestCompression("deflate")
  case object Snappy extends ManifestCompression("snappy")

  /** Uncompressed blocks. */
  case object Null extends ManifestCompression("null")

  val All: Seq[ManifestCompression] = Seq(Zstd, Deflate, Snappy, Null)
}
