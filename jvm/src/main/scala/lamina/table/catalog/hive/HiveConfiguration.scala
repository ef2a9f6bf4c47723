package lamina.table.catalog.hive

import java.io.File

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.hive.conf.HiveConf

import lamina.errors.BadInputException
import lamina.io.PathNames
import lamina.table.catalog.MetastoreOptions

/** The configuration of a Hive metastore client, from a catalog's options, in Paimon's order: the
 *  session's Hadoop configuration; `hadoop-conf-dir`'s `core-site.xml` and `hdfs-site.xml`; the
 *  `hive-site.xml` of `hive-conf-dir` (else of `$HIVE_CONF_DIR`, else the one on the class path); the
 *  catalog's `hive.*`, `javax.jdo.*` and `datanucleus.*` options; `uri` as `hive.metastore.uris`.
 *
 *  Without a `uri` anywhere the metastore is embedded in this process: it then keeps its tables in
 *  Derby (`javax.jdo.option.ConnectionURL`, by default `metastore_db` in the working directory), and
 *  creates them on first use unless told otherwise. */
object HiveConfiguration {
  val HiveSite = "hive-site.xml"
  val HadoopSites = Seq("core-site.xml", "hdfs-site.xml")
  val PassThroughPrefixes = Seq("hive.", "javax.jdo.", "datanucleus.")

  /** Set for an embedded metastore unless the configuration says otherwise: create the metastore's
   *  tables in an empty database, do not insist on a recorded schema version, and pool connections with
   *  the pool Spark ships (Hive's default, BoneCP, is not in Spark's distribution). */
  val EmbeddedDefaults = Map("datanucleus.schema.autoCreateAll" -> "true", "hive.metastore.schema.verification" -> "false",
    "datanucleus.connectionPoolingType" -> "HikariCP")

  def build(catalog: String, options: Map[String, String], hadoopConf: Configuration, warehouse: Path,
      locationInProperties: Boolean): HiveConf = {
    val base = new Configuration(hadoopConf)
    MetastoreOptions.get(options, MetastoreOptions.HadoopConfDir).map(_.trim).filter(_.nonEmpty).foreach { dir =>
      val found = HadoopSites.map(new File(dir, _)).filter(_.isFile)
      if (found.isEmpty)
        throw new BadInputException(s"Catalog '$catalog': option '${MetastoreOptions.HadoopConfDir}' = '$dir' holds " +
          s"none of ${HadoopSites.mkString(", ")}")
      found.foreach(f => base.addResource(PathNames.of(f.toURI.toString)))
    }
    val conf = new HiveConf(base, classOf[HiveConf])
    val confDir = MetastoreOptions.get(options, MetastoreOptions.HiveConfDir).map(_.trim).filter(_.nonEmpty)
    confDir.orElse(Option(System.getenv("HIVE_CONF_DIR")).filter(_.nonEmpty)).foreach { dir =>
      val site = new File(dir, HiveSite)
      if (site.isFile) conf.addResource(PathNames.of(site.toURI.toString))
      else if (confDir.isDefined)
        throw new BadInputException(s"Catalog '$catalog': option '${MetastoreOptions.HiveConfDir}' = '$dir' has no $HiveSite")
    }
    options.foreach { case (k, v) =>
      if (PassThroughPrefixes.exists(k.toLowerCase.startsWith)) conf.set(k, v)
    }
    MetastoreOptions.get(options, MetastoreOptions.Uri).map(_.trim).filter(_.nonEmpty)
      .foreach(conf.set(HiveConf.ConfVars.METASTOREURIS.varname, _))
    if (isEmbedded(conf)) EmbeddedDefaults.foreach { case (k, v) =>
      if (!options.keys.exists(_.equalsIgnoreCase(k)) && conf.get(k) == defaultOf(k)) conf.set(k, v)
    }
    if (!locationInProperties) conf.set(HiveConf.ConfVars.METASTOREWAREHOUSE.varname, warehouse.toString)
    conf
  }

  def isEmbedded(conf: HiveConf): Boolean =
    Option(conf.get(HiveConf.ConfVars.METASTOREURIS.varname)).forall(_.trim.isEmpty)

  /** How messages name the metastore: its URIs, or the embedded one's database. */
  def describe(conf: HiveConf): String =
    if (isEmbedded(conf)) s"embedded, ${conf.get(HiveConf.ConfVars.METASTORECONNECTURLKEY.varname)}"
    else conf.get(HiveConf.ConfVars.METASTOREURIS.varname)

  private def defaultOf(key: String): String =
    Option(HiveConf.getConfVars(key)).map(_.getDefaultValue).orNull

  def entries(conf: HiveConf): Map[String, String] = conf.iterator().asScala.map(e => e.getKey -> e.getValue).toMap
}
