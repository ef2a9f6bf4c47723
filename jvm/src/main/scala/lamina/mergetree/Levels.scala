package lamina.mergetree

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.InternalRow

import lamina.table.manifest.DataFileMeta

/** The files of one bucket as sorted runs: the one definition of which files form which run, used
 *  by merge-on-read and by compaction alike.
 *
 *  Invariant: every file is in exactly one run, of its own level; each level-0 file is a run of its
 *  own; above level 0, a level's files taken by min key form one run until a file's key range touches
 *  or overlaps an earlier file's, which starts the level's next run (files of another writer, or a
 *  compaction output that kept a delete and a newer insert of one key in two files).
 *
 *  `runs` lists the runs newest first: level 0 by max sequence number, descending; then the levels
 *  ascending, the runs of one level in descending key order of their first files. */
final class Levels private (val runs: IndexedSeq[SortedRun], order: FileKeyOrder) {

  def files: Seq[DataFileMeta] = runs.flatMap(_.files)

  /** The runs oldest first: the order a merge takes them in, so that between two records of equal key
   *  and equal sequence number (two writers of one bucket) the newer run's record wins. */
  def runsOldestFirst: IndexedSeq[SortedRun] = runs.reverse

  /** The same files without level 0 (read by tables whose readers skip it). */
  def withoutLevel0: Levels = new Levels(runs.filter(_.level > 0), order)

  /** Checks the invariant; throws IllegalStateException naming the first file that breaks it. */
  def validate(): Unit = {
    val names = files.map(_.fileName)
    val twice = names.diff(names.distinct)
    if (twice.nonEmpty) throw new IllegalStateException(s"file ${twice.head} is in more than one sorted run")
    runs.foreach { r =>
      if (r.files.isEmpty) throw new IllegalStateException(s"an empty sorted run at level ${r.level}")
      r.files.find(_.level != r.level).foreach { f =>
        throw new IllegalStateException(s"file ${f.fileName} of level ${f.level} is in a run of level ${r.level}")
      }
      if (r.level == 0 && r.files.size > 1)
        throw new IllegalStateException(s"a level-0 run holds ${r.files.size} files: ${r.files.map(_.fileName).mkString(", ")}")
      r.files.sliding(2).foreach {
        case Seq(a, b) if !order.ordering.lt(order.maxKey(a), order.minKey(b)) =>
          throw new IllegalStateException(
            s"file ${b.fileName} does not start above the max key of ${a.fileName} in their level-${r.level} run")
        case _ =>
      }
    }
  }
}

object Levels {
  def apply(files: Seq[DataFileMeta], order: FileKeyOrder): Levels = {
    val (l0, upper) = files.partition(_.level == 0)
    val level0 = l0.sortBy(_.maxSequenceNumber).reverse.map(f => SortedRun(0, IndexedSeq(f)))
    val leveled = upper.groupBy(_.level).toSeq.sortBy(_._1).flatMap { case (level, fs) =>
      runsOfLevel(level, fs, order).reverse
    }
    new Levels((level0 ++ leveled).toIndexedSeq, order)
  }

  /** A level's files by min key, a new run wherever a file's range touches or overlaps those before. */
  private def runsOfLevel(level: Int, files: Seq[DataFileMeta], order: FileKeyOrder): Seq[SortedRun] = {
    val ordering = order.ordering
    val sorted = files.map(f => (f, order.minKey(f), order.maxKey(f))).sortWith((a, b) => ordering.lt(a._2, b._2))
    val out = ArrayBuffer.empty[ArrayBuffer[DataFileMeta]]
    var lastMax: InternalRow = null
    sorted.foreach { case (f, lo, hi) =>
      if (out.isEmpty || ordering.lteq(lo, lastMax)) out += ArrayBuffer(f)
      else out.last += f
      if (lastMax == null || ordering.gt(hi, lastMax)) lastMax = hi
    }
    out.map(fs => SortedRun(level, fs.toIndexedSeq)).toSeq
  }
}
