package lamina.spark

import org.apache.spark.sql.execution.datasources.FileFormat
import org.apache.spark.sql.execution.datasources.orc.OrcFileFormat
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat

import lamina.errors.BadInputException

/** Spark's own file formats, used to write and (vectorized) read data files. */
object DataFileFormats {
  def forName(format: String): FileFormat = format.toLowerCase match {
    case "parquet" => new ParquetFileFormat()
    case "orc" => new OrcFileFormat()
    case other => throw new BadInputException(s"Data file format '$other' is not supported; use parquet or orc")
  }

  /** Spark's option name for the codec, per format; values follow Paimon's names. */
  def compressionOption(format: String, codec: String): (String, String) = {
    val c = codec.toLowerCase match {
      case "none" => "uncompressed"
      case other => other
    }
    "compression" -> c
  }
}
