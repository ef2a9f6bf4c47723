package lamina.spark.read

import org.apache.spark.sql.sources.Filter

import lamina.mergetree.{KeyRange, LongKeys}
import lamina.table.FileStoreTable
import lamina.table.scan.KeySet

/** The runtime key set of a primary-key table's single integral key (a MERGE's source keys, or a key
 *  `IN (SELECT ...)`) as a filter on the key column, which the file readers skip row groups and pages
 *  by: each sorted run is sorted by key, so a source whose keys lie in a few ranges reads only the
 *  pages of those ranges, where without it every page of every run is decoded and the merge drops
 *  the rows of other keys.
 *
 *  The rule: the keys are covered by at most [[MaxRanges]] ranges, cut at the widest gaps between
 *  neighbouring keys ([[LongKeys.cover]]). The filter is used when the cover is exact (the keys lie in
 *  fewer runs of consecutive values than that), or when its ranges span at most half of the keys'
 *  span; keys scattered evenly leave no page out, and cost no filter. Not for tables with deletion
 *  vectors, whose rows are counted by their positions in a file. */
object KeyPageFilter {

  val MaxRanges = 256

  def of(table: FileStoreTable, sets: Seq[KeySet]): Option[Filter] =
    table.schema.trimmedPrimaryKeys match {
      case Seq(key) if !table.capabilities.deletionVectors =>
        sets.find(_.column == key).flatMap { s =>
          s.longKeys.flatMap { keys =>
            val cover = keys.cover(MaxRanges)
            if (worthIt(keys, cover)) RuntimeKeyFilters.ofRanges(key, s.dataType, cover) else None
          }
        }
      case _ => None
    }

  /** Whether `cover` of `keys` leaves enough of the keys' span out to be worth a filter. */
  def worthIt(keys: LongKeys, cover: IndexedSeq[KeyRange]): Boolean =
    cover.nonEmpty && (cover.size < MaxRanges || {
      def width(r: KeyRange) = r.upper.toDouble - r.lower.toDouble + 1
      cover.map(width).sum <= width(keys.range) / 2
    })
}
