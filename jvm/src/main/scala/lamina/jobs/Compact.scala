package lamina.jobs

import org.apache.spark.sql.SparkSession

import lamina.api.Compaction
import lamina.errors.BadInputException
import lamina.spark.{CatalogOptions, SessionHadoopConf}
import lamina.spark.compact.SparkCompactTasks
import lamina.table.catalog.{MetastoreOptions, Metastores}

/** `spark-submit --class lamina.jobs.Compact lamina.jar --warehouse W --table db.t
 *  [--catalog-conf key=value]... [--partition k=v[,k2=v2]]... [--where COND] [--full] [--order-strategy S --order-by c1,c2] [--progress]`: compacts a table
 *  (an append table sorted by the columns with an order strategy) and prints the snapshot. The table is
 *  found through the metastore the `--catalog-conf` options choose (catalog options such as
 *  `metastore=jdbc`, `uri=...`; the filesystem metastore by default), checked as a catalog's are. With
 *  `--progress` it prints a line to stderr as each batch of buckets finishes. */
object Compact {
  final case class Args(warehouse: String, table: String, partitions: Seq[Map[String, String]], full: Boolean,
      orderStrategy: String = "", orderBy: String = "", where: String = "",
      catalogConf: Map[String, String] = Map.empty, progress: Boolean = false)

  def parse(args: Seq[String]): Args = {
    var warehouse: Option[String] = None
    var table: Option[String] = None
    val partitions = Seq.newBuilder[Map[String, String]]
    var full = false
    var progress = false
    var orderStrategy, orderBy, where = ""
    val catalogConf = Map.newBuilder[String, String]
    var rest = args.toList
    def value(flag: String, tail: List[String]): (String, List[String]) = tail match {
      case v :: more if !v.startsWith("--") => (v, more)
      case _ => throw new BadInputException(s"$flag needs a value")
    }
    while (rest.nonEmpty) rest match {
      case "--warehouse" :: tail => val (v, r) = value("--warehouse", tail); warehouse = Some(v); rest = r
      case "--table" :: tail => val (v, r) = value("--table", tail); table = Some(v); rest = r
      case "--partition" :: tail =>
        val (v, r) = value("--partition", tail); partitions ++= Compaction.parsePartitions(v); rest = r
      case "--full" :: tail => full = true; rest = tail
      case "--progress" :: tail => progress = true; rest = tail
      case "--order-strategy" :: tail => val (v, r) = value("--order-strategy", tail); orderStrategy = v; rest = r
      case "--order-by" :: tail => val (v, r) = value("--order-by", tail); orderBy = v; rest = r
      case "--where" :: tail => val (v, r) = value("--where", tail); where = v; rest = r
      case "--catalog-conf" :: tail =>
        val (v, r) = value("--catalog-conf", tail)
        v.split("=", 2) match {
          case Array(k, kv) if k.trim.nonEmpty => catalogConf += k.trim -> kv
          case _ => throw new BadInputException(s"--catalog-conf needs key=value, not '$v'")
        }
        rest = r
      case other :: _ =>
        throw new BadInputException(
          s"Unknown argument '$other'; usage: --warehouse W --table db.t [--catalog-conf key=value]... " +
            "[--partition k=v]... [--full] [--progress] " +
            "[--order-strategy order|zorder|hilbert --order-by c1,c2] [--where condition]")
      case Nil =>
    }
    Args(warehouse.getOrElse(throw new BadInputException("--warehouse is required")),
      table.getOrElse(throw new BadInputException("--table is required")), partitions.result(), full, orderStrategy,
      orderBy, where, catalogConf.result(), progress)
  }

  def main(argv: Array[String]): Unit = {
    val a = parse(argv.toSeq)
    val spark = SparkSession.builder().appName(s"lamina compact ${a.table}").getOrCreate()
    try {
      val options = a.catalogConf + (MetastoreOptions.Warehouse -> a.warehouse)
      CatalogOptions.check("compact", options)
      val metastore = Metastores.open("compact", options, SessionHadoopConf(spark))
      val snapshot =
        try Compaction.compact(metastore, a.table, a.partitions, a.full, a.orderStrategy, a.orderBy, a.where,
            if (a.progress) SparkCompactTasks.printingProgress else SparkCompactTasks)
        finally metastore.close()
      println(snapshot.map(id => s"compacted ${a.table}: snapshot $id").getOrElse(s"compacted ${a.table}: nothing to compact"))
    } finally spark.stop()
  }
}
