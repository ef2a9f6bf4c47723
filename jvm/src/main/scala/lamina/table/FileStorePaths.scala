package lamina.table

import java.util.UUID

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow

import lamina.format.DataFileFormat
import lamina.types.DataType

/** Where each file of a table lives, in Paimon's layout:
 *  `<table>/[k1=v1/k2=v2/]bucket-<n>/data-<uuid>-<i>.<format>` and `<table>/manifest/...`. */
final class FileStorePaths(val tablePath: Path, partitionKeys: Seq[String], partitionTypes: Seq[DataType],
    defaultPartitionName: String, legacyNames: Boolean = true)
  extends Serializable {

  def manifestDir: Path = new Path(tablePath, "manifest")
  def manifestPath(name: String): Path = new Path(manifestDir, name)

  /** `<table>/index`: where Paimon keeps index files (deletion vectors among them) unless
   *  `index-file-in-data-file-dir` puts them in their bucket's directory. */
  def indexDir: Path = new Path(tablePath, "index")

  /** `k=v/...` with Hive-style escaping; null or empty values become the default partition name. */
  def partitionPath(partition: InternalRow): String = {
    if (partitionKeys.isEmpty) return ""
    partitionKeys.indices.map { i =>
      val v = PartitionValues.toDirectoryText(partition, i, partitionTypes(i), legacyNames)
      val text = if (v == null || v.isEmpty) defaultPartitionName else v
      s"${FileStorePaths.escape(partitionKeys(i))}=${FileStorePaths.escape(text)}"
    }.mkString("/")
  }

  def bucketDir(partition: InternalRow, bucket: Int): Path = {
    val pp = partitionPath(partition)
    if (pp.isEmpty) new Path(tablePath, s"bucket-$bucket") else new Path(new Path(tablePath, pp), s"bucket-$bucket")
  }

  def dataFilePath(partition: InternalRow, bucket: Int, fileName: String): Path =
    new Path(bucketDir(partition, bucket), fileName)
}

object FileStorePaths {
  def newDataFileName(prefix: String, uuid: String, count: Int, format: DataFileFormat): String =
    s"$prefix-$uuid-$count.${format.name}"

  def newUuid(): String = UUID.randomUUID().toString

  private val mustEscape: Array[Boolean] = {
    val a = new Array[Boolean](128)
    (0 until 32).foreach(a(_) = true)
    "\"#%'*/:=?\\\u007F{}[]^".foreach(c => a(c) = true)
    a
  }

  /** Hive's path escaping, which Paimon follows for partition directory names. */
  def escape(s: String): String = {
    val sb = new StringBuilder
    s.foreach { c =>
      if (c < 128 && mustEscape(c)) sb.append('%').append(f"${c.toInt}%02X") else sb.append(c)
    }
    sb.toString
  }
}
