package lamina.bench

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow

import lamina.mergetree._
import lamina.mergetree.function.DeduplicateMergeFunction

/** Throughput of the merge of sorted runs ([[SortMergeReader.mergeUniqueCursors]], the read path,
 *  over a [[LoserTree]]) against the cost floor of reading the same runs one after the other, as an
 *  iterator (concatenation: what a read of runs that need no merge costs).
 *
 * Usage: `bench/runMain lamina.bench.MergeBench [--records N] [--runs 2,5,10,50] [--repeat N]
 *   [--layouts overlapping,disjoint,updates] [--only concat|merge]`
 *
 * `--records` long keys in total (2,000,000 by default) are spread over the runs: `overlapping` deals
 * each key to a random run (every merge step may change the winner), `disjoint` gives each run a
 * contiguous key range (the runs are concatenated), `updates` is `overlapping` with one key in five
 * written again in another run with a higher sequence number (the merge takes the runs of such keys
 * together). The merge function is deduplicate, so a key found in one run is handed out as it is.
 *
 * Each side is measured in a JVM of its own (this one starts two, with its own JVM options), so that
 * neither is compiled with the other's profile of the cursors; `--only` is what such a JVM runs.
 * There every case runs once unmeasured, so that the merge is compiled for the mix of cases as in a
 * reader, then `--repeat` times; the median is reported, as records read per second.
 */
object MergeBench {

  final case class Config(records: Int = 2000000, runs: Seq[Int] = Seq(2, 5, 10, 50), repeat: Int = 5,
      layouts: Seq[String] = Seq("overlapping", "disjoint", "updates"), only: Option[String] = None)

  @volatile private var sink = 0L

  def main(args: Array[String]): Unit = {
    val config = parse(args.toList, Config())
    config.only match {
      case Some(side) => measure(config, merge = side == "merge")
      case None =>
        println(s"[merge-bench] $config; ${Runtime.getRuntime.availableProcessors()} cores; " +
          s"Java ${System.getProperty("java.version")}")
        val concat = inOwnJvm(args, "concat")
        val merge = inOwnJvm(args, "merge")
        println("| runs | layout | records | concatenation (M records/s) | merge (M records/s) | merge / concatenation |")
        println("|---:|---|---:|---:|---:|---:|")
        concat.zip(merge).foreach { case (Seq(n, layout, records, c), Seq(_, _, _, m)) =>
          println(
            f"| $n | $layout | $records | ${c.toDouble / 1e6}%.1f | ${m.toDouble / 1e6}%.1f | ${m.toDouble / c.toDouble}%.2f |")
        }
    }
  }

  /** The result lines of this benchmark run with `--only side` in a new JVM: runs, layout, records,
   *  records per second. */
  private def inOwnJvm(args: Array[String], side: String): Seq[Seq[String]] = {
    val javaBin = java.nio.file.Paths.get(System.getProperty("java.home"), "bin", "java").toString
    val jvmOptions = java.lang.management.ManagementFactory.getRuntimeMXBean.getInputArguments.asScala
    val command =
      Seq(javaBin) ++ jvmOptions ++ Seq("-cp", System.getProperty("java.class.path"), getClass.getName.stripSuffix("$")) ++
        args ++ Seq("--only", side)
    val process = new ProcessBuilder(command: _*).redirectErrorStream(true).start()
    val lines = scala.io.Source.fromInputStream(process.getInputStream).getLines().toList
    require(process.waitFor() == 0, s"the $side run failed:\n${lines.mkString("\n")}")
    lines.filter(_.startsWith("result ")).map(_.split(' ').toSeq.tail)
  }

  private def measure(config: Config, merge: Boolean): Unit = {
    val cases = for (n <- config.runs; layout <- config.layouts)
      yield (n, layout, runsOf(new Random(n * 31 + layout.length), config.records, n, layout))
    for ((_, _, data) <- cases) time(data, merge)
    for ((n, layout, data) <- cases)
      println(s"result $n $layout ${records(data)} ${median(Array.fill(config.repeat)(time(data, merge)))}")
    println(s"checksum $sink")
  }

  private def parse(args: List[String], c: Config): Config = args match {
    case Nil => c
    case "--records" :: n :: rest => parse(rest, c.copy(records = n.toInt))
    case "--runs" :: list :: rest => parse(rest, c.copy(runs = list.split(',').map(_.trim.toInt).toSeq))
    case "--repeat" :: n :: rest => parse(rest, c.copy(repeat = n.toInt))
    case "--only" :: side :: rest if side == "concat" || side == "merge" => parse(rest, c.copy(only = Some(side)))
    case "--layouts" :: list :: rest => parse(rest, c.copy(layouts = list.split(',').map(_.trim).toSeq))
    case other :: _ => throw new IllegalArgumentException(s"Unknown argument '$other'; see the MergeBench doc")
  }

  private def median(xs: Array[Double]): Double = xs.sorted.apply(xs.length / 2)

  /** Runs as (keys, sequence numbers), each ascending by key. */
  private def runsOf(rnd: Random, records: Int, n: Int, layout: String): IndexedSeq[(Array[Long], Array[Long])] = {
    val owner = layout match {
      case "disjoint" => Array.tabulate(records)(k => (k.toLong * n / records).toInt)
      case _ => Array.fill(records)(rnd.nextInt(n))
    }
    val perRun = Array.fill(n)(Array.newBuilder[(Long, Long)])
    var seq = 0L
    for (k <- 0 until records) { seq += 1; perRun(owner(k)) += ((k.toLong, seq)) }
    if (layout == "updates") for (k <- 0 until records if rnd.nextInt(5) == 0) {
      val other = (owner(k) + 1 + rnd.nextInt(math.max(n - 1, 1))) % n
      if (other != owner(k)) { seq += 1; perRun(other) += ((k.toLong, seq)) }
    }
    perRun.toIndexedSeq.map { b =>
      val recs = b.result().sortBy(_._1)
      (recs.map(_._1), recs.map(_._2))
    }
  }

  /** A run over arrays, one KeyValue reused, as the file readers do. */
  private final class ArrayCursor(keys: Array[Long], seqs: Array[Long]) extends RunCursor {
    private val key: InternalRow = new GenericInternalRow(1)
    private val kv = new KeyValue(key, 0, RowKind.Insert, key)
    private var at = -1
    override def advance(): Boolean = {
      at += 1
      if (at < keys.length) { kv.sequenceNumber = seqs(at); true }
      else false
    }
    override def current: KeyValue = kv
    override def keyAsLong: Long = keys(at)
  }

  private val order = KeyOrder((a: InternalRow, b: InternalRow) => java.lang.Long.compare(a.getLong(0), b.getLong(0)),
    KeyOrder.longKeyOf(Seq(org.apache.spark.sql.types.LongType)))

  private def records(data: IndexedSeq[(Array[Long], Array[Long])]): Int = data.map(_._1.length).sum

  /** The runs one after the other, as an iterator over their records: what reading runs that need no
   *  merge costs. */
  private final class Concatenation(cursors: IndexedSeq[RunCursor]) extends Iterator[KeyValue] {
    private var run = 0
    private var ready = false
    override def hasNext: Boolean = {
      while (!ready && run < cursors.size) { ready = cursors(run).advance(); if (!ready) run += 1 }
      ready
    }
    override def next(): KeyValue = {
      if (!hasNext) throw new NoSuchElementException("no more records")
      ready = false
      cursors(run).current
    }
  }

  /** Records read per second by one merge of `data`, or by its concatenation. */
  private def time(data: IndexedSeq[(Array[Long], Array[Long])], merge: Boolean): Double = {
    val cursors = data.map { case (k, s) => new ArrayCursor(k, s): RunCursor }
    val start = System.nanoTime()
    val it =
      if (merge) SortMergeReader.mergeUniqueCursors(cursors, order, new DeduplicateMergeFunction(false), dropDelete = true)
      else new Concatenation(cursors)
    var sum = 0L
    while (it.hasNext) sum += it.next().sequenceNumber
    val seconds = (System.nanoTime() - start) / 1e9
    sink += sum
    records(data) / seconds
  }
}
