package lamina.table.options

/** The Parquet format version of data files (option [[CoreOptions.ParquetWriterVersion]]); `name` is
 *  the value Parquet's writer takes for `parquet.writer.version`. */
sealed abstract class ParquetWriterVersion(name: String) extends EnumValue(name)

object ParquetWriterVersion {

  /** Plain and dictionary pages, for readers that predate v2 encodings. */
  case object V1 extends ParquetWriterVersion("v1")

  /** v2 pages: integers as deltas. */
  case object V2 extends ParquetWriterVersion("v2")

  val All: Seq[ParquetWriterVersion] = Seq(V1, V2)
}
