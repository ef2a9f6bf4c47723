package lamina.table

import java.util.UUID

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow

import lamina.format.{DataFileDir, DataFileFormat, DataFileRef}
import lamina.io.PathNames
import lamina.table.manifest.DataFileMeta
import lamina.types.DataType

/** Where each file of a table lives, in Paimon's layout:
 *  `<table>/[k1=v1/k2=v2/]bucket-<n>/data-<uuid>-<i>.<format>` and `<table>/manifest/...`. A data file
 *  written under an external root (`externalRoots`, [[ExternalDataRoots]]) lies at the same relative
 *  path under that root and records its full path in its metadata: [[dataFile]] is the one way from a
 *  data file's metadata to its path. */
final class FileStorePaths(val tablePath: Path, partitionKeys: Seq[String], partitionTypes: Seq[DataType],
    defaultPartitionName: String, legacyNames: Boolean = true, val externalRoots: Seq[Path] = Nil)
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

  def bucketDir(partition: InternalRow, bucket: Int): Path = bucketDirUnder(tablePath, partition, bucket)

  private def bucketDirUnder(root: Path, partition: InternalRow, bucket: Int): Path =
    PathNames.child(PathNames.descendant(root, partitionSegments(partition), "partition directory"),
      FileStorePaths.bucketDirName(bucket))

  /** Where a writer of (`partition`, `bucket`) puts new data files: the bucket's directory, or the same
   *  relative directory under each external root. */
  def newFilesDir(partition: InternalRow, bucket: Int): DataFileDir =
    new DataFileDir(bucketDir(partition, bucket), externalRoots.map(bucketDirUnder(_, partition, bucket)))

  /** The path of data file `file` of (`partition`, `bucket`): its external path when it has one. */
  def dataFile(partition: InternalRow, bucket: Int, file: DataFileMeta): Path =
    FileStorePaths.dataFileIn(bucketDir(partition, bucket), file.fileName, file.externalPath)

  /** The paths of `names`, extra files (file indexes) of `file`: beside the data file, wherever it lies. */
  def extraFiles(partition: InternalRow, bucket: Int, file: DataFileMeta, names: Seq[String]): Seq[Path] = {
    val dir = dataFile(partition, bucket, file).getParent
    names.map(PathNames.child(dir, _, "data file"))
  }

  /** The paths of data file `file` and of its extra files. */
  def dataFileWithExtras(partition: InternalRow, bucket: Int, file: DataFileMeta): Seq[Path] =
    dataFile(partition, bucket, file) +: extraFiles(partition, bucket, file, file.extraFiles)

  /** An index file of `index/` by its name. */
  def indexFile(name: String): Path = PathNames.child(indexDir, name, "index file")
}

object FileStorePaths {

  /** Paimon's postpone bucket: files of a `bucket` = -2 table that its streaming writers put in
   *  `bucket-postpone`, unread until a compaction assigns their rows to buckets. */
  val PostponeBucket: Int = -2

  /** `bucket-<n>`, or `bucket-postpone`. */
  def bucketDirName(bucket: Int): String = if (bucket == PostponeBucket) "bucket-postpone" else s"bucket-$bucket"

  /** A data file's path: its external path when its metadata records one, else `name` in `bucketDir`. */
  def dataFileIn(bucketDir: Path, name: String, externalPath: Option[String]): Path =
    DataFileRef.path(bucketDir, name, externalPath)

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
