package lamina.table.compact

import java.nio.ByteBuffer

import org.slf4j.LoggerFactory

import lamina.errors.{CommitConflictException, PostCommitFailureException}
import lamina.table.FileStoreTable
import lamina.table.commit.CommitMessage
import lamina.table.options.{ChangelogProducer, CoreOptions, MergeEngine, TableCapabilities}

/** The compaction a committed write to a primary-key table asks for. */
object CompactAfterWrite {

  /** Compaction after a write, in its own COMPACT snapshot. Append tables with fixed buckets get a
   *  minor compaction of the touched buckets ([[AppendCompaction.plan]]: their small files once
   *  `compaction.min.file-num` of them wait, files whose deletion vectors delete more than
   *  `compaction.delete-ratio-threshold` of their rows), as Paimon's writers compact such buckets,
   *  unless `write-only`, as best effort; append tables without buckets (bucket = -1) only by
   *  CALL sys.compact, as with Paimon's Spark writer. Primary-key tables whose readers skip level 0
   *  (first-row: full compaction; deletion vectors: lookup compaction, which pushes level 0 up) get
   *  the buckets this commit touched compacted at once, so that no committed
   *  row stays invisible: a compaction that loses a race with a concurrent commit is planned again from
   *  the new snapshot until it lands (or finds nothing left to do), and should it still fail, the write
   *  fails with a [[PostCommitFailureException]] (not retryable: the write is committed) saying what
   *  makes its rows visible. Until then readers see the table without them, as Paimon's readers of
   *  such tables skip level 0. Other tables get universal
   *  compaction of the touched buckets when their sorted runs call for it (lookup compaction with the
   *  lookup changelog producer; full compaction with the full-compaction producer and
   *  `full-compaction.delta-commits`, every that many micro-batches of a stream, `batchId`), unless
   *  `write-only` is set, as best effort: their rows are visible either way. */
  def afterCommit(table: FileStoreTable, msgs: Seq[CommitMessage], commitUser: String, snapshotId: Long,
      tasks: CompactTasks, batchId: Option[Long] = None): Unit = {
    val touched = msgs.map(m => (ByteBuffer.wrap(m.partition), m.bucket)).distinct.toSet
    if (touched.isEmpty) return
    val latest = table.withSchema(table.schemaManager.latest().getOrElse(table.schema))
    plan(latest.capabilities, latest.numBuckets, latest.options, batchId).foreach { p =>
      run(p, table.name, snapshotId)(Compactor.compactBuckets(latest, Some(touched), p.full, commitUser, tasks))
    }
  }

  /** What a committed write asks of compaction: a full compaction or not, by lookup (deletion vectors)
   *  or not, whether it must land for the write's rows to be visible, and how many attempts a lost race
   *  gets. */
  final case class Plan(full: Boolean, lookup: Boolean, mustLand: Boolean, attempts: Int)

  /** The compaction after a write to a table with these capabilities, bucket count and options (see
   *  [[afterCommit]]); None when the write asks for none. Pure. */
  def plan(caps: TableCapabilities, numBuckets: Int, options: Map[String, String], batchId: Option[Long]): Option[Plan] = {
    val pk = caps.primaryKey
    if (!pk && numBuckets == -1) return None
    // primary-key tables whose readers skip level 0 must compact for the write's rows to be visible:
    // first-row compacts fully, a table with deletion vectors by lookup compaction (unless write-only)
    val lookup = pk && caps.deletionVectors
    val mustLand = caps.compactionMakesWritesVisible
    if (!mustLand && caps.writeOnly) return None
    val full = pk && ((mustLand && !lookup) || fullChangelogDue(options, batchId))
    Some(Plan(full, lookup, mustLand, if (mustLand) FullCompactionAttempts else 3))
  }

  /** Runs `compact` as `plan` says: again after each lost race while attempts remain; then, for a
   *  compaction that must land, a [[PostCommitFailureException]] naming the committed snapshot, for
   *  any other a warning (the write is committed and its rows visible either way). */
  private[compact] def run(plan: Plan, table: String, snapshotId: Long)(compact: => Unit): Unit = {
    var attempt = 0
    var done = false
    while (!done) {
      attempt += 1
      try {
        compact
        done = true
      } catch {
        case e: CommitConflictException if attempt < plan.attempts =>
          log.warn(s"Compaction after a write to $table lost a race (attempt $attempt): ${e.getMessage}")
        case e: Exception if plan.mustLand =>
          val kind = if (plan.lookup) "deletion-vector" else MergeEngine.FirstRow.name
          throw new PostCommitFailureException(snapshotId,
            s"The write to table $table is committed (snapshot $snapshotId): do not run it again. The compaction that makes " +
              s"its rows visible failed after $attempt attempt(s); readers of a $kind table see its rows once " +
              s"CALL <catalog>.sys.compact(table => '$table') succeeds", e)
        case e: Exception =>
          log.warn(s"Compaction after a write to $table failed; the write is committed", e)
          done = true
      }
    }
  }

  /** Whether the full-compaction changelog producer asks this write for a full compaction (as Paimon's
   *  Spark writers: every batch write, every `full-compaction.delta-commits`-th micro-batch). */
  def fullChangelogDue(options: Map[String, String], batchId: Option[Long]): Boolean =
    CoreOptions.ChangelogProducer.getOrDefault(options) == ChangelogProducer.FullCompaction &&
      CoreOptions.FullCompactionDeltaCommits.get(options).exists(n => batchId.forall(id => (id + 1) % n == 0))

  /** Attempts at the compaction that makes a first-row write visible: each loss to a concurrent commit
   *  means that commit landed, so writers racing on a bucket all get through well within this. */
  private[compact] val FullCompactionAttempts = 50

  private val log = LoggerFactory.getLogger(getClass)
}
