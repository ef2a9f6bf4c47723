package lamina.format

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.column.statistics.{BinaryStatistics, IntStatistics, LongStatistics}
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.spark.unsafe.types.UTF8String

import lamina.types._

/** Column statistics of a Parquet data file taken from its footer, as Paimon takes them, instead of
 *  from every row written: the Parquet writer keeps min, max and null count per column chunk anyway.
 *
 *  Only for top-level columns whose Parquet statistics order values as Paimon does: integers of up to
 *  64 bits and dates (signed), and strings (unsigned bytes, as Parquet orders UTF8). A column chunk
 *  without statistics leaves the column's bounds and null count unknown; one with a null count but no
 *  bounds (Parquet drops bounds longer than 4 KiB) leaves its bounds unknown. */
object ParquetFooterStats {

  /** Whether a column of this type can take its stats from a Parquet footer. */
  def supports(t: DataType): Boolean = t match {
    case _: TinyIntType | _: SmallIntType | _: IntType | _: BigIntType | _: DateType | _: CharType | _: VarCharType => true
    case _ => false
  }

  /** Stats of one column over a file: bounds in Spark's internal form for `t`, null where unknown. */
  final case class ColumnStats(min: Any, max: Any, nullCount: java.lang.Long)

  /** The stats of the top-level columns `names` (of types `types`, each [[supports]]ed) of the Parquet
   *  file at `path`, read from its footer. */
  def read(conf: Configuration, path: Path, names: Seq[String], types: Seq[DataType]): Seq[ColumnStats] = {
    val reader = ParquetFileReader.open(HadoopInputFile.fromPath(path, conf))
    val blocks =
      try reader.getFooter.getBlocks.asScala.toSeq
      finally reader.close()
    names.zip(types).map { case (name, t) =>
      var min: Any = null
      var max: Any = null
      var nulls = 0L
      var boundsKnown = true
      var countsKnown = true
      blocks.foreach { block =>
        val chunk = block.getColumns.asScala.find(c => c.getPath.size == 1 && c.getPath.toArray.head == name)
        chunk.map(_.getStatistics).filter(s => s != null && !s.isEmpty) match {
          case None => boundsKnown = false; countsKnown = false
          case Some(stats) =>
            nulls += stats.getNumNulls
            if (stats.hasNonNullValue) {
              val (lo, hi) = bounds(stats, t)
              if (min == null || compare(t, lo, min) < 0) min = lo
              if (max == null || compare(t, hi, max) > 0) max = hi
            } else if (stats.getNumNulls < chunk.get.getValueCount) boundsKnown = false
        }
      }
      ColumnStats(if (boundsKnown) min else null, if (boundsKnown) max else null,
        if (countsKnown) java.lang.Long.valueOf(nulls) else null)
    }
  }

  private def bounds(stats: org.apache.parquet.column.statistics.Statistics[_], t: DataType): (Any, Any) =
    (stats, t) match {
      case (s: LongStatistics, _: BigIntType) => (s.getMin, s.getMax)
      case (s: IntStatistics, _: TinyIntType) => (s.getMin.toByte, s.getMax.toByte)
      case (s: IntStatistics, _: SmallIntType) => (s.getMin.toShort, s.getMax.toShort)
      case (s: IntStatistics, _: IntType | _: DateType) => (s.getMin, s.getMax)
      case (s: BinaryStatistics, _: CharType | _: VarCharType) =>
        (UTF8String.fromBytes(s.genericGetMin.getBytes), UTF8String.fromBytes(s.genericGetMax.getBytes))
      case (s, other) => throw new IllegalStateException(
          s"Parquet statistics ${s.getClass.getSimpleName} for a column of type ${other.asSQLString}")
    }

  private def compare(t: DataType, a: Any, b: Any): Int = (a, b) match {
    case (x: UTF8String, y: UTF8String) => x.binaryCompare(y)
    case (x: Number, y: Number) => java.lang.Long.compare(x.longValue, y.longValue)
    case _ => throw new IllegalStateException(s"bounds $a and $b of a column of type ${t.asSQLString}")
  }
}
