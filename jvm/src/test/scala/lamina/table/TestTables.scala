package lamina.table

import java.nio.file.{Files, Path => JPath, Paths, StandardCopyOption}
import java.util.Comparator

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.UTF8String

import lamina.format.BinaryRowCodec
import lamina.io.FileIO
import lamina.table.commit.CommitMessage
import lamina.table.manifest.{DataFileMeta, SimpleStats}
import lamina.table.schema.{SchemaManager, TableSchema}
import lamina.types._

/** Shared builders for table-layer tests: local temp tables, hand-made data file metadata and
 *  partitions. Data files named here never exist on disk; only metadata is committed. */
object TestTables {
  val fileIO: FileIO = FileIO(new Configuration())

  def tempDir(prefix: String): JPath = Files.createTempDirectory(prefix)

  def deleteRecursively(dir: JPath): Unit =
    if (Files.exists(dir)) {
      val s = Files.walk(dir)
      try s.sorted(Comparator.reverseOrder[JPath]()).forEach(p => Files.delete(p))
      finally s.close()
    }

  def hadoopPath(p: JPath): Path = new Path(p.toUri)

  /** A copy of a checked-in fixture directory (under `fixtures/`) in `into`, so tests never write
   *  into the resources. */
  def copyFixture(name: String, into: JPath): JPath = {
    val src = Paths.get(getClass.getResource(s"/fixtures/$name").toURI)
    val dst = into.resolve(name)
    val s = Files.walk(src)
    try s.forEach { p =>
        val t = dst.resolve(src.relativize(p).toString)
        if (Files.isDirectory(p)) Files.createDirectories(t)
        else Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING)
      }
    finally s.close()
    dst
  }

  /** The table at `dir` (a copied fixture) at its latest schema. */
  def openTable(dir: JPath, name: String): FileStoreTable = {
    val path = hadoopPath(dir)
    FileStoreTable(fileIO, path, name, new SchemaManager(fileIO, path, name).latest().get)
  }

  def readResource(name: String): String =
    new String(Files.readAllBytes(Paths.get(getClass.getResource(name).toURI)), "UTF-8")

  /** (id INT, v STRING, p STRING) partitioned by p, bucket-unaware unless `options` say otherwise. */
  def eventsSchema(options: Map[String, String] = Map.empty, partitioned: Boolean = true): TableSchema =
    TableSchema(
      id = 0,
      fields = Seq(DataField(0, "id", IntType()), DataField(1, "v", VarCharType.string()),
        DataField(2, "p", VarCharType.string())),
      highestFieldId = 2,
      partitionKeys = if (partitioned) Seq("p") else Nil,
      primaryKeys = Nil,
      options = options,
      comment = None,
      timeMillis = 0L)

  def createTable(dir: JPath, schema: TableSchema, name: String = "db.t"): FileStoreTable = {
    val path = hadoopPath(dir.resolve(name.replace('.', '_')))
    new SchemaManager(fileIO, path, name).create(schema)
    FileStoreTable(fileIO, path, name, schema)
  }

  /** The serialized BinaryRow of one STRING partition value (null allowed). */
  def stringPartition(v: String): Array[Byte] =
    BinaryRowCodec.serialize(InternalRow(if (v == null) null else UTF8String.fromString(v)), Seq(VarCharType.string()))

  /** Inverse of [[stringPartition]]. */
  def stringPartitionValue(bytes: Array[Byte]): String = {
    val row = BinaryRowCodec.deserialize(bytes, Seq(VarCharType.string()))
    if (row.isNullAt(0)) null else row.getUTF8String(0).toString
  }

  def file(name: String, rows: Long = 10L, valueStats: SimpleStats = SimpleStats.Empty,
      statsCols: Option[Seq[String]] = Some(Nil), schemaId: Long = 0L, level: Int = 0): DataFileMeta =
    DataFileMeta(
      fileName = name,
      fileSize = 1000L + rows,
      rowCount = rows,
      minKey = SimpleStats.Empty.minValues,
      maxKey = SimpleStats.Empty.maxValues,
      keyStats = SimpleStats.Empty,
      valueStats = valueStats,
      minSequenceNumber = 0L,
      maxSequenceNumber = 0L,
      schemaId = schemaId,
      level = level,
      creationTimeMillis = Some(1700000000000L),
      deleteRowCount = Some(0L),
      fileSource = Some(DataFileMeta.FileSourceAppend),
      valueStatsCols = statsCols)

  def message(partition: String, files: DataFileMeta*): CommitMessage =
    CommitMessage(stringPartition(partition), 0, -1, files)
}
