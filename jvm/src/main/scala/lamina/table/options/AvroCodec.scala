package lamina.table.options

/** The codec of Avro data files when set explicitly (option [[CoreOptions.AvroCodec]], Paimon's
 *  `avro.codec`), named as Avro names it in a file's header; unset, `file.compression` decides. */
sealed abstract class AvroCodec(name: String) extends EnumValue(name)

object AvroCodec {
  case object Null extends AvroCodec("null")
  case object Deflate extends AvroCodec("deflate")
  case object Snappy extends AvroCodec("snappy")
  case object Zstandard extends AvroCodec("zstandard")
  case object Bzip2 extends AvroCodec("bzip2")
  case object Xz extends AvroCodec("xz")

  val All: Seq[AvroCodec] = Seq(Null, Deflate, Snappy, Zstandard, Bzip2, Xz)
}
