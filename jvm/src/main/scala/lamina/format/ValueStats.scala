package lamina.format

import org.apache.hadoop.fs.Path

import lamina.types.DataField

/** How the value statistics of a table's data files are gathered: in Parquet files, the columns
 *  whose footer statistics Paimon's semantics allow ([[ParquetFooterStats.supports]]) take them from
 *  the footer once the file is written, the others from every record. */
final class ValueStats(val mode: StatsMode, fields: Seq[DataField], writers: DataFileWriters) {
  private val types = fields.map(_.dataType)
  private val fromFooter: Array[Boolean] =
    types.map(t => writers.format == DataFileFormat.Parquet && mode != StatsMode.NoStats && ParquetFooterStats.supports(t)).toArray
  private val footerColumns: Array[Int] = fromFooter.indices.filter(fromFooter(_)).toArray

  /** A collector for the next file, fed the table's rows. */
  def newCollector(): StatsCollector =
    new StatsCollector(types, types.indices.toArray, Seq.fill(types.size)(mode), fromFooter.map(!_))

  /** Completes `collector` with the footer statistics of the file it was fed, closed at `path`. */
  def complete(collector: StatsCollector, path: Path): StatsCollector = {
    if (footerColumns.nonEmpty)
      ParquetFooterStats.read(writers.conf.value, path, footerColumns.map(fields(_).name).toSeq,
        footerColumns.map(types(_)).toSeq).zip(footerColumns).foreach { case (c, j) =>
        collector.absorb(j, c.min, c.max, c.nullCount)
      }
    collector
  }
}
