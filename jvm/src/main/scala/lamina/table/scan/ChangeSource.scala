package lamina.table.scan

import lamina.table.FileStoreTable
import lamina.table.options.{ChangelogProducer, CoreOptions, IncrementalScanMode}

/** Which files hold what one snapshot changed, for incremental and streaming reads. */
sealed trait ChangeSource extends Product with Serializable

object ChangeSource {

  /** The data files an APPEND snapshot's delta added, as written (every record with its row kind). */
  case object Delta extends ChangeSource

  /** The changelog files a snapshot lists (`changelog-producer` = input). */
  case object Changelog extends ChangeSource

  /** What `auto` reads: the changelog of a table that produces one, the delta otherwise (as Paimon). */
  def of(table: FileStoreTable): ChangeSource =
    if (CoreOptions.ChangelogProducer.getOrDefault(table.options) == ChangelogProducer.None) Delta else Changelog

  def of(table: FileStoreTable, mode: IncrementalScanMode): ChangeSource = mode match {
    case IncrementalScanMode.Delta => Delta
    case IncrementalScanMode.Changelog => Changelog
    case _ => of(table)
  }
}
