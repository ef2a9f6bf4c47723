package lamina.spark

import java.lang.ref.WeakReference

import org.apache.hadoop.conf.Configuration
import org.apache.spark.SparkContext
import org.apache.spark.broadcast.Broadcast
import org.apache.spark.util.SerializableConfiguration

/** The Hadoop configurations that data-file reads hand their executors, each broadcast once per
 *  distinct content. Spark's readers take their settings (the session's, the table's storage, the
 *  columns read) from a broadcast configuration; building one serializes every entry (about a
 *  thousand), which cost a query's planning more than finding its files did, once per reader. Two
 *  reads whose configurations hold the same entries share one broadcast: repeated scans of a table,
 *  with any filters, broadcast nothing. A configuration is compared by its entries, so any change of
 *  a setting broadcasts anew. The last [[MaxEntries]] are kept, for the current Spark context only. */
object ConfBroadcasts {
  val MaxEntries = 32

  private var context = new WeakReference[SparkContext](null)
  private val cache = new java.util.LinkedHashMap[java.util.Map[String, String], Broadcast[SerializableConfiguration]](
    16, 0.75f, true) {
    override def removeEldestEntry(
        e: java.util.Map.Entry[java.util.Map[String, String], Broadcast[SerializableConfiguration]]): Boolean =
      size() > MaxEntries
  }

  /** A broadcast of `conf`, which must not change afterwards. */
  def of(sc: SparkContext, conf: Configuration): Broadcast[SerializableConfiguration] = {
    val entries = new java.util.HashMap[String, String]()
    conf.iterator().forEachRemaining(e => entries.put(e.getKey, e.getValue))
    synchronized {
      if ((context.get() ne sc) || sc.isStopped) {
        cache.clear()
        context = new WeakReference(sc)
      }
      val known = cache.get(entries)
      if (known != null) known
      else {
        val b = sc.broadcast(new SerializableConfiguration(conf))
        cache.put(entries, b)
        b
      }
    }
  }
}
