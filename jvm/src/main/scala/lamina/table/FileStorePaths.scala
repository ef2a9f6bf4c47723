package lamina.table

import java.util.UUID

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow

import lamina.format.DataFileFormat
import lamina.io.PathNames
import lamina.io.PathNames
import lamina.types.DataType

/** Where each file of a table lives, in Paimon's layout:
 *  `<table>/[k1=v1/k2=v2/]bucket-<n>/data-<uuid>-<i>.<format>` and `<table>/manifest/...`. */
final class FileStorePaths(val tablePath: Path, partitionKeys: Seq[String], partitionTypes: Seq[DataType],
    defaultPartitionName: String, legacyNames: Boolean = true)
  extends Serializable {

  def manifestDir: Path = PathNames.child(tablePath, "manifest")
  def manifestPath(name: String): Path = PathNames.child(manifestDir, name, "manifest")

  /** `<table>/index`: where Paimon keeps index files (deletion vectors among them) unless
   *  `index-file-in-data-file-dir` puts them in their bucket's directory. */
  def indexDir: Path = PathNames.child(tablePath, "index")

  /** `k=v/...` with Hive-style escaping; null or empty values become the default partition name. */
  def partitionPath(partition: InternalRow): String = partitionSegments(partition).mkString("/")

  /** The directory names of `partition`, one `k=v` per partition key. */
  def partitionSegments(partition: InternalRow): Seq[String] =
    partitionKeys.indices.map { i =>
      val v = PartitionValues.toDirectoryText(partition, i, partitionTypes(i), legacyNames)
      val text = if (v == null || v.isEmpty) defaultPartitionName else v
      s"${FileStorePaths.escape(partitionKeys(i))}=${FileStorePaths.escape(text)}"
    }

  def bucketDir(partition: InternalRow, bucket: Int): Path =
    PathNames.child(PathNames.descendant(tablePath, partitionSegments(partition), "partition directory"),
      if (bucket == FileStorePaths.PostponeBucket) "bucket-postpone" else s"bucket-$bucket")

  /** An index file of `index/` by its name. */
  def indexFile(name: String): Path = PathNames.child(indexDir, name, "index file")

  def dataFilePath(partition: InternalRow, bucket: Int, fileName: String): Path =
    PathNames.child(bucketDir(partition, bucket), fileName, "data file")
}

object FileStorePaths {

  /** Paimon's postpone bucket: files of a `bucket` = -2 table that its streaming writers put in
   *  `bucket-postpone`, unread until a compaction assigns their rows to buckets. */
  val PostponeBucket: Int = -2
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
