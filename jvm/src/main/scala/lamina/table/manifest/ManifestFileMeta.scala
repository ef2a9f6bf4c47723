package lamina.table.manifest

import org.apache.avro.Schema
import org.apache.avro.generic.{GenericData, GenericRecord}

/** One manifest file as listed in a manifest list, with counts and partition stats for pruning.
 *  Invariant: `partitionStats` bound the partition of every entry in the file. */
final case class ManifestFileMeta(
    fileName: String,
    fileSize: Long,
    numAddedFiles: Long,
    numDeletedFiles: Long,
    partitionStats: SimpleStats,
    schemaId: Long,
    minBucket: Option[Int] = None,
    maxBucket: Option[Int] = None,
    minLevel: Option[Int] = None,
    maxLevel: Option[Int] = None) {

  def toAvro(schema: Schema): GenericRecord = {
    val r = new GenericData.Record(schema)
    r.put("_VERSION", ManifestEntry.Version)
    r.put("_FILE_NAME", fileName)
    r.put("_FILE_SIZE", fileSize)
    r.put("_NUM_ADDED_FILES", numAddedFiles)
    r.put("_NUM_DELETED_FILES", numDeletedFiles)
    r.put("_PARTITION_STATS", partitionStats.toAvro(schema.getField("_PARTITION_STATS").schema()))
    r.put("_SCHEMA_ID", schemaId)
    r.put("_MIN_BUCKET", minBucket.map(Integer.valueOf).orNull)
    r.put("_MAX_BUCKET", maxBucket.map(Integer.valueOf).orNull)
    r.put("_MIN_LEVEL", minLevel.map(Integer.valueOf).orNull)
    r.put("_MAX_LEVEL", maxLevel.map(Integer.valueOf).orNull)
    r
  }
}

object ManifestFileMeta {
  def fromAvro(r: GenericRecord): ManifestFileMeta = ManifestFileMeta(
    fileName = AvroUtil.fileName(r.get("_FILE_NAME")),
    fileSize = r.get("_FILE_SIZE").asInstanceOf[Number].longValue(),
    numAddedFiles = r.get("_NUM_ADDED_FILES").asInstanceOf[Number].longValue(),
    numDeletedFiles = r.get("_NUM_DELETED_FILES").asInstanceOf[Number].longValue(),
    partitionStats = SimpleStats.fromAvro(r.get("_PARTITION_STATS").asInstanceOf[GenericRecord]),
    schemaId = r.get("_SCHEMA_ID").asInstanceOf[Number].longValue(),
    minBucket = AvroUtil.optInt(r, "_MIN_BUCKET"),
    maxBucket = AvroUtil.optInt(r, "_MAX_BUCKET"),
    minLevel = AvroUtil.optInt(r, "_MIN_LEVEL"),
    maxLevel = AvroUtil.optInt(r, "_MAX_LEVEL"))

  lazy val AvroSchema: Schema = new Schema.Parser().parse(
    s"""{"type":"record","name":"ManifestFileMeta","fields":[
       |{"name":"_VERSION","type":"int"},
       |{"name":"_FILE_NAME","type":"string"},
       |{"name":"_FILE_SIZE","type":"long"},
       |{"name":"_NUM_ADDED_FILES","type":"long"},
       |{"name":"_NUM_DELETED_FILES","type":"long"},
       |{"name":"_PARTITION_STATS","type":{"type":"record","name":"record_PARTITION_STATS","fields":${SimpleStats.AvroFields}}},
       |{"name":"_SCHEMA_ID","type":"long"},
       |{"name":"_MIN_BUCKET","type":["null","int"],"default":null},
       |{"name":"_MAX_BUCKET","type":["null","int"],"default":null},
       |{"name":"_MIN_LEVEL","type":["null","int"],"default":null},
       |{"name":"_MAX_LEVEL","type":["null","int"],"default":null},
       |{"name":"_MIN_ROW_ID","type":["null","long"],"default":null},
       |{"name":"_MAX_ROW_ID","type":["null","long"],"default":null}
       |]}""".stripMargin)
}
