package lamina.table.manifest

import scala.jdk.CollectionConverters._

import org.apache.avro.Schema
import org.apache.avro.generic.{GenericData, GenericRecord}

/** Metadata of one data file: the `_FILE` record inside a manifest entry.
 *  Invariant: `minKey <= maxKey` and `minSequenceNumber <= maxSequenceNumber`; `rowCount` counts
 *  every record in the file, deletes included (`deleteRowCount` of them). */
final case class DataFileMeta(
    fileName: String,
    fileSize: Long,
    rowCount: Long,
    minKey: Array[Byte],
    maxKey: Array[Byte],
    keyStats: SimpleStats,
    valueStats: SimpleStats,
    minSequenceNumber: Long,
    maxSequenceNumber: Long,
    schemaId: Long,
    level: Int,
    extraFiles: Seq[String] = Seq.empty,
    creationTimeMillis: Option[Long] = None,
    deleteRowCount: Option[Long] = None,
    embeddedIndex: Option[Array[Byte]] = None,
    fileSource: Option[Int] = None,
    valueStatsCols: Option[Seq[String]] = None,
    externalPath: Option[String] = None) {

  def fileFormat: String = {
    val dot = fileName.lastIndexOf('.')
    if (dot < 0) "" else fileName.substring(dot + 1)
  }

  def toAvro(schema: Schema): GenericRecord = {
    val r = new GenericData.Record(schema)
    r.put("_FILE_NAME", fileName)
    r.put("_FILE_SIZE", fileSize)
    r.put("_ROW_COUNT", rowCount)
    r.put("_MIN_KEY", java.nio.ByteBuffer.wrap(minKey))
    r.put("_MAX_KEY", java.nio.ByteBuffer.wrap(maxKey))
    r.put("_KEY_STATS", keyStats.toAvro(schema.getField("_KEY_STATS").schema()))
    r.put("_VALUE_STATS", valueStats.toAvro(schema.getField("_VALUE_STATS").schema()))
    r.put("_MIN_SEQUENCE_NUMBER", minSequenceNumber)
    r.put("_MAX_SEQUENCE_NUMBER", maxSequenceNumber)
    r.put("_SCHEMA_ID", schemaId)
    r.put("_LEVEL", level)
    r.put("_EXTRA_FILES", extraFiles.asJava)
    r.put("_CREATION_TIME", creationTimeMillis.map(java.lang.Long.valueOf).orNull)
    r.put("_DELETE_ROW_COUNT", deleteRowCount.map(java.lang.Long.valueOf).orNull)
    r.put("_EMBEDDED_FILE_INDEX", embeddedIndex.map(java.nio.ByteBuffer.wrap).orNull)
    r.put("_FILE_SOURCE", fileSource.map(Integer.valueOf).orNull)
    r.put("_VALUE_STATS_COLS", valueStatsCols.map(_.asJava).orNull)
    r.put("_EXTERNAL_PATH", externalPath.orNull)
    r
  }
}

object DataFileMeta {
  val FileSourceAppend = 0
  val FileSourceCompact = 1

  def fromAvro(r: GenericRecord): DataFileMeta = {
    import AvroUtil._
    DataFileMeta(
      fileName = fileName(r.get("_FILE_NAME")),
      fileSize = r.get("_FILE_SIZE").asInstanceOf[Number].longValue(),
      rowCount = r.get("_ROW_COUNT").asInstanceOf[Number].longValue(),
      minKey = bytes(r.get("_MIN_KEY")),
      maxKey = bytes(r.get("_MAX_KEY")),
      keyStats = SimpleStats.fromAvro(r.get("_KEY_STATS").asInstanceOf[GenericRecord]),
      valueStats = SimpleStats.fromAvro(r.get("_VALUE_STATS").asInstanceOf[GenericRecord]),
      minSequenceNumber = r.get("_MIN_SEQUENCE_NUMBER").asInstanceOf[Number].longValue(),
      maxSequenceNumber = r.get("_MAX_SEQUENCE_NUMBER").asInstanceOf[Number].longValue(),
      schemaId = r.get("_SCHEMA_ID").asInstanceOf[Number].longValue(),
      level = r.get("_LEVEL").asInstanceOf[Number].intValue(),
      extraFiles = strList(r.get("_EXTRA_FILES")).map(fileName),
      creationTimeMillis = optLong(r, "_CREATION_TIME"),
      deleteRowCount = optLong(r, "_DELETE_ROW_COUNT"),
      embeddedIndex = if (r.getSchema.getField("_EMBEDDED_FILE_INDEX") == null) None
      else Option(bytes(r.get("_EMBEDDED_FILE_INDEX"))),
      fileSource = optInt(r, "_FILE_SOURCE"),
      valueStatsCols = if (r.getSchema.getField("_VALUE_STATS_COLS") == null) None
      else Option(r.get("_VALUE_STATS_COLS")).map(strList),
      externalPath = if (r.getSchema.getField("_EXTERNAL_PATH") == null) None
      else Option(r.get("_EXTERNAL_PATH")).map(_.toString))
  }

  val AvroSchemaJson: String =
    s"""{"type":"record","name":"DataFileMeta","fields":[
       |{"name":"_FILE_NAME","type":"string"},
       |{"name":"_FILE_SIZE","type":"long"},
       |{"name":"_ROW_COUNT","type":"long"},
       |{"name":"_MIN_KEY","type":"bytes"},
       |{"name":"_MAX_KEY","type":"bytes"},
       |{"name":"_KEY_STATS","type":{"type":"record","name":"record_KEY_STATS","fields":${SimpleStats.AvroFields}}},
       |{"name":"_VALUE_STATS","type":{"type":"record","name":"record_VALUE_STATS","fields":${SimpleStats.AvroFields}}},
       |{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},
       |{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},
       |{"name":"_SCHEMA_ID","type":"long"},
       |{"name":"_LEVEL","type":"int"},
       |{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},
       |{"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},
       |{"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null},
       |{"name":"_EMBEDDED_FILE_INDEX","type":["null","bytes"],"default":null},
       |{"name":"_FILE_SOURCE","type":["null","int"],"default":null},
       |{"name":"_VALUE_STATS_COLS","type":["null",{"type":"array","items":"string"}],"default":null},
       |{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},
       |{"name":"_FIRST_ROW_ID","type":["null","long"],"default":null},
       |{"name":"_WRITE_COLS","type":["null",{"type":"array","items":"string"}],"default":null}
       |]}""".stripMargin
}
