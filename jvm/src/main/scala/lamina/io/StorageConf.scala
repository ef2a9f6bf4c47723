package lamina.io

import org.apache.hadoop.conf.Configuration

/** The Hadoop configuration Lamina's file access runs on, built from the session's and a catalog's
 *  storage options.
 *
 *  - Local files are written without `.crc` side files ([[NoChecksumLocalFileSystem]]).
 *  - `s3://` is served by Hadoop's S3A connector, as `s3a://` is (unless configured otherwise); S3A
 *    resolves the classes its configuration names with Spark's class loader (no class loader isolation).
 *  - A catalog's storage options are Paimon's: `s3.<key>`, `s3a.<key>` and `fs.s3a.<key>` set
 *    `fs.s3a.<key>` (`s3.access-key`, `s3.secret-key` and `s3.path-style-access` their dotted S3A
 *    names too), `hadoop.<key>` sets `<key>`. */
object StorageConf {
  val S3Prefixes: Seq[String] = Seq("s3.", "s3a.", "fs.s3a.")
  val HadoopPrefix = "hadoop."
  private val S3AImpl = "org.apache.hadoop.fs.s3a.S3AFileSystem"
  private val S3AAbstractImpl = "org.apache.hadoop.fs.s3a.S3A"
  private val S3AClassLoaderIsolation = "fs.s3a.classloader.isolation"

  /** Paimon's dashed names of S3A settings whose S3A names are dotted. */
  private val Mirrored = Map(
    "fs.s3a.access-key" -> "fs.s3a.access.key",
    "fs.s3a.secret-key" -> "fs.s3a.secret.key",
    "fs.s3a.path-style-access" -> "fs.s3a.path.style.access")

  /** Whether a catalog option `key` (lower case) is a storage option. */
  def isStorageOption(key: String): Boolean =
    (S3Prefixes :+ HadoopPrefix).exists(p => key.startsWith(p) && key.length > p.length)

  /** `base` (changed in place and returned) with Lamina's file-system settings and the storage options
   *  among `options`. */
  def apply(base: Configuration, options: Map[String, String] = Map.empty): Configuration = {
    base.set("fs.file.impl", classOf[NoChecksumLocalFileSystem].getName)
    base.setBoolean("fs.file.impl.disable.cache", true)
    // S3A would otherwise resolve classes named in its configuration with its own class loader, which
    // does not see Lamina's (added to Spark with spark.jars): the local file system above among them
    if (base.get(S3AClassLoaderIsolation) == null) base.setBoolean(S3AClassLoaderIsolation, false)
    if (base.get("fs.s3.impl") == null) base.set("fs.s3.impl", S3AImpl)
    if (base.get("fs.AbstractFileSystem.s3.impl") == null) base.set("fs.AbstractFileSystem.s3.impl", S3AAbstractImpl)
    options.foreach { case (k, v) =>
      val key = k.toLowerCase
      S3Prefixes.find(p => key.startsWith(p) && key.length > p.length) match {
        case Some(p) =>
          val s3a = "fs.s3a." + k.substring(p.length)
          base.set(s3a, v)
          Mirrored.get(s3a.toLowerCase).foreach(base.set(_, v))
        case None if key.startsWith(HadoopPrefix) && key.length > HadoopPrefix.length =>
          base.set(k.substring(HadoopPrefix.length), v)
        case None =>
      }
    }
    base
  }

  /** `target` (changed in place and returned) with the file-system settings (`fs.*`) of `storage`: a
   *  configuration built from the session for data files, with the table's storage options on top. */
  def overlay(target: Configuration, storage: Configuration): Configuration = {
    storage.iterator().forEachRemaining(e => if (e.getKey.startsWith("fs.")) target.set(e.getKey, e.getValue))
    target
  }
}
