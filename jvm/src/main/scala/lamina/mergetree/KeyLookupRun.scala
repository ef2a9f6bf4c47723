package lamina.mergetree

import java.io.{Closeable, File}

import lamina.dv.DeletionVectorsMaintainer
import lamina.lookup.cache.CacheCounters
import lamina.table.manifest.DataFileMeta

/** The lookup path of a read asking for chosen keys ([[LongKeys]]), for one sorted run above level 0
 *  of a table without deletion vectors: the run yields its records of those keys by looking each one
 *  up in the local lookup files (with values) that lookup compaction built on this JVM for the run's
 *  files ([[LookupLevels]]), where the scan path decodes the run's pages and walks them.
 *
 *  The rule ([[of]]): the lookup path is taken when the chosen keys inside the run's files' key ranges
 *  are at most one per `rowsPerKey` rows of the run (`merge.key-lookup.rows-per-key`), and every file
 *  whose range holds one has its local file built here already, or may have it built
 *  (`merge.key-lookup.build`: only from readers of whole files, never from a read's own, which may
 *  leave columns or pages out). A key costs a few probes of a cached block, where the scan decodes
 *  every row of the pages it reads. Otherwise the run is scanned.
 *
 *  The files are held from [[of]] until the cursor is exhausted or [[close]]d. */
final class KeyLookupRun private (levels: LookupLevels, files: IndexedSeq[(DataFileMeta, Int, Int)], keys: LongKeys,
    longKey: KeyOrder.LongKey, order: KeyOrder)
  extends RunCursor with Closeable {

  private val records: Iterator[KeyValue] = files.iterator.flatMap { case (f, from, to) =>
    (from until to).iterator.flatMap { i =>
      keys.lookedUp += 1
      levels.recordIn(f, longKey.row(keys.sorted(i)))
    }
  }
  private val cursor = RunCursor.of(records, order)
  private var closed = false

  override def advance(): Boolean = {
    val more = !closed && cursor.advance()
    if (!more) close()
    more
  }

  override def current: KeyValue = cursor.current
  override def keyAsLong: Long = cursor.keyAsLong

  override def close(): Unit = if (!closed) {
    closed = true
    levels.close()
  }
}

/** How a read looks keys up: local lookup files in `dir`, a run looked up when its chosen keys number
 *  at most one per `rowsPerKey` of its rows, and, with `builders` (readers of every column of the
 *  files, without filters), missing local files built from them (`merge.key-lookup.build`). */
final case class KeyLookups(dir: File, rowsPerKey: Int, builders: Option[KeyValueReaders] = None)

object KeyLookupRun {

  /** `run` read by lookups of `keys`, if the rule takes the lookup path for it (at most one key per
   *  `lookups.rowsPerKey` rows; 0: never); None to scan it. */
  def of(readers: KeyValueReaders, bucketPath: String, run: SortedRun, keys: LongKeys, lookups: KeyLookups,
      counts: CacheCounters): Option[KeyLookupRun] = {
    val rowsPerKey = lookups.rowsPerKey
    val order = readers.keyOrder
    val fileOrder = FileKeyOrder.of(readers.table.layout)
    (order.asLong, run.level > 0 && !readers.table.capabilities.deletionVectors) match {
      case (Some(longKey), true) =>
        // each file with the chosen keys inside its range: [from, to) of keys.sorted
        val withKeys = run.files.map { f =>
          val (from, to) = keys.indicesWithin(longKey(fileOrder.minKey(f)), longKey(fileOrder.maxKey(f)))
          (f, from, to)
        }.filter { case (_, from, to) => from < to }
        val chosen = withKeys.iterator.map { case (_, from, to) => (to - from).toLong }.sum
        val rows = run.files.iterator.map(_.rowCount).sum
        if (rowsPerKey <= 0 || chosen == 0 || chosen * rowsPerKey > rows) None
        else {
          // local files are built only from readers of whole files, never from a read's own
          val levels = new LookupLevels(lookups.builders.getOrElse(readers), bucketPath, Seq.empty,
            new DeletionVectorsMaintainer(Map.empty, false), withValue = true, lookups.dir, counts)
          val held = withKeys.forall { case (f, _, _) => if (lookups.builders.isDefined) levels.hold(f) else levels.holdBuilt(f) }
          if (held)
            Some(new KeyLookupRun(levels, withKeys, keys, longKey, order))
          else { levels.close(); None }
        }
      case _ => None
    }
  }
}
