package lamina.spark

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.CatalogNotFoundException

import lamina.api.Compaction
import lamina.errors.{BadInputException, NotFoundException}
import lamina.spark.compact.SparkCompactTasks

/** The [[Compaction]] facade (and the rest of `lamina.api` as it grows) bound to a Spark session:
 *  what the Python package calls through py4j. A Lamina catalog is found by its name in the
 *  session; arguments arrive as Java values and collections. */
object SessionApi {

  /** The session's catalog `name`, which must be a Lamina catalog. */
  def catalog(spark: SparkSession, name: String): LaminaCatalog = {
    val plugin =
      try spark.sessionState.catalogManager.catalog(name)
      catch {
        case e: CatalogNotFoundException =>
          throw new NotFoundException(s"Catalog '$name' is not configured in this session (spark.sql.catalog.$name)", e)
      }
    plugin match {
      case c: LaminaCatalog => c
      case other => throw new BadInputException(s"Catalog '$name' is a ${other.getClass.getName}, not a Lamina catalog")
    }
  }

  /** Compacts `table` (`db.t`) of catalog `catalogName`: the given partitions (column -> value as
   *  text; empty: all) or those `where` selects (null: no condition), fully or as universal compaction
   *  picks; an append table sorted by `orderBy` when `orderStrategy` asks (null: none). The snapshot id
   *  committed, or null when nothing needed compacting. `progress`: a line on the driver's stderr as each
   *  batch of buckets finishes. */
  def compact(spark: SparkSession, catalogName: String, table: String,
      partitions: java.util.List[java.util.Map[String, String]], full: Boolean, orderStrategy: String,
      orderBy: String, where: String, progress: Boolean): java.lang.Long =
    Compaction.compact(catalog(spark, catalogName).laminaWarehouse, table,
      partitions.asScala.map(_.asScala.toMap).toSeq, full, Option(orderStrategy).getOrElse(""),
      Option(orderBy).getOrElse(""), Option(where).getOrElse(""),
      if (progress) SparkCompactTasks.printingProgress else SparkCompactTasks).map(Long.box).orNull
}
