package lamina.table.manifest

import scala.jdk.CollectionConverters._

import org.apache.avro.Schema
import org.apache.avro.generic.{GenericData, GenericRecord}

import lamina.dv.DeletionVectorRange

/** One index file of a (partition, bucket), as an index manifest entry describes it (Paimon's
 *  `IndexFileMeta`). For a `DELETION_VECTORS` index, `dvRanges` says where each data file's vector
 *  stands in it, and `rowCount` counts the vectors. Paimon's global-index field (`_GLOBAL_INDEX`) is
 *  not kept: Lamina writes no global index, and reads only deletion-vector entries.
 *  Invariant: `dvRanges` name each data file at most once. */
final case class IndexFileMeta(
    indexType: String,
    fileName: String,
    fileSize: Long,
    rowCount: Long,
    dvRanges: Option[Seq[DeletionVectorRange]],
    externalPath: Option[String]) {

  /** Fills the index-file fields of an index manifest record `r`. */
  def putAvro(r: GenericRecord): Unit = {
    r.put("_INDEX_TYPE", indexType)
    r.put("_FILE_NAME", fileName)
    r.put("_FILE_SIZE", fileSize)
    r.put("_ROW_COUNT", rowCount)
    val rangesSchema = IndexFileMeta.nonNull(r.getSchema.getField("_DELETIONS_VECTORS_RANGES").schema())
    val rangeSchema = IndexFileMeta.nonNull(rangesSchema.getElementType)
    r.put("_DELETIONS_VECTORS_RANGES",
      dvRanges.map { rs =>
        rs.map { d =>
          val x = new GenericData.Record(rangeSchema)
          x.put("f0", d.dataFileName)
          x.put("f1", d.offset)
          x.put("f2", d.length)
          x.put("_CARDINALITY", d.cardinality.map(java.lang.Long.valueOf).orNull)
          x
        }.asJava
      }.orNull)
    r.put("_EXTERNAL_PATH", externalPath.orNull)
    r.put("_GLOBAL_INDEX", null)
  }
}

object IndexFileMeta {

  private val RangeFields = Set("f0", "f1", "f2", "_CARDINALITY")

  /** The index-file fields of an index manifest record. A range record with a field Paimon does not
   *  write (a damaged byte in the file's schema) is refused rather than read without it. */
  def fromAvro(r: GenericRecord): IndexFileMeta = IndexFileMeta(
    indexType = AvroUtil.str(r.get("_INDEX_TYPE")),
    fileName = AvroUtil.fileName(r.get("_FILE_NAME")),
    fileSize = r.get("_FILE_SIZE").asInstanceOf[Number].longValue(),
    rowCount = r.get("_ROW_COUNT").asInstanceOf[Number].longValue(),
    dvRanges = Option(r.get("_DELETIONS_VECTORS_RANGES")).map(_.asInstanceOf[java.util.List[GenericRecord]].asScala.toSeq
        .map { x =>
          val unknown = x.getSchema.getFields.asScala.map(_.name).filterNot(RangeFields)
          if (unknown.nonEmpty)
            throw new IllegalArgumentException(s"unknown deletion-vector range fields ${unknown.mkString(", ")}")
          DeletionVectorRange(AvroUtil.str(x.get("f0")), x.get("f1").asInstanceOf[Number].intValue(),
            x.get("f2").asInstanceOf[Number].intValue(), AvroUtil.optLong(x, "_CARDINALITY"))
        }),
    externalPath = Option(r.get("_EXTERNAL_PATH")).map(_.toString))

  private def nonNull(s: Schema): Schema =
    if (s.getType == Schema.Type.UNION) s.getTypes.asScala.find(_.getType != Schema.Type.NULL).get else s

  /** The fields after `_BUCKET` in Paimon 1.4's index manifest schema, as its writer names them. */
  val AvroFieldsJson: String =
    """{"name":"_INDEX_TYPE","type":"string"},
      |{"name":"_FILE_NAME","type":"string"},
      |{"name":"_FILE_SIZE","type":"long"},
      |{"name":"_ROW_COUNT","type":"long"},
      |{"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",{"type":"record",
      |"name":"record__DELETIONS_VECTORS_RANGES","fields":[{"name":"f0","type":"string"},{"name":"f1","type":"int"},
      |{"name":"f2","type":"int"},{"name":"_CARDINALITY","type":["null","long"],"default":null}]}]}],"default":null},
      |{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},
      |{"name":"_GLOBAL_INDEX","type":["null",{"type":"record","name":"record__GLOBAL_INDEX","fields":[
      |{"name":"_ROW_RANGE_START","type":"long"},{"name":"_ROW_RANGE_END","type":"long"},
      |{"name":"_INDEX_FIELD_ID","type":"int"},
      |{"name":"_EXTRA_FIELD_IDS","type":["null",{"type":"array","items":"int"}],"default":null},
      |{"name":"_INDEX_META","type":["null","bytes"],"default":null}]}],"default":null}""".stripMargin
}
