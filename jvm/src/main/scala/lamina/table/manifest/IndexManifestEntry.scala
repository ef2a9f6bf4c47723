package lamina.table.manifest

import scala.jdk.CollectionConverters._

import org.apache.avro.Schema
import org.apache.avro.generic.{GenericData, GenericRecord}

/** One record of an index manifest (`manifest/index-manifest-<uuid>-<n>`, Paimon's
 *  `IndexManifestEntry`, version 1): an index file of a (partition, bucket). A snapshot's index
 *  manifest lists every live index file of the table (Paimon rewrites it whole on each commit that
 *  changes an index), so all its entries are ADDs.
 *  Invariant: `kind` is [[ManifestEntry.Add]] in every index manifest Paimon or Lamina writes. */
final case class IndexManifestEntry(kind: Int, partition: Array[Byte], bucket: Int, indexFile: IndexFileMeta) {

  def toAvro(schema: Schema): GenericRecord = {
    val r = new GenericData.Record(schema)
    r.put("_VERSION", IndexManifestEntry.Version)
    r.put("_KIND", kind)
    r.put("_PARTITION", java.nio.ByteBuffer.wrap(partition))
    r.put("_BUCKET", bucket)
    indexFile.putAvro(r)
    r
  }
}

object IndexManifestEntry {
  val Version = 1

  /** Decodes a record; a version or kind Lamina does not know is refused by the caller's check, a
   *  missing field or a value of the wrong type fails here (a corrupt file, see [[AvroFiles.read]]). */
  def fromAvro(r: GenericRecord): IndexManifestEntry = {
    val unknown = r.getSchema.getFields.asScala.map(_.name).filterNot(Fields)
    if (unknown.nonEmpty) throw new IllegalArgumentException(s"unknown index manifest fields ${unknown.mkString(", ")}")
    val version = r.get("_VERSION").asInstanceOf[Number].intValue()
    if (version != Version) throw new IllegalArgumentException(s"index manifest entry version $version, expected $Version")
    IndexManifestEntry(
      kind = r.get("_KIND").asInstanceOf[Number].intValue(),
      partition = AvroUtil.bytes(r.get("_PARTITION")),
      bucket = r.get("_BUCKET").asInstanceOf[Number].intValue(),
      indexFile = IndexFileMeta.fromAvro(r))
  }

  /** Every field of Paimon's index manifest records. */
  private val Fields = Set("_VERSION", "_KIND", "_PARTITION", "_BUCKET", "_INDEX_TYPE", "_FILE_NAME", "_FILE_SIZE",
    "_ROW_COUNT", "_DELETIONS_VECTORS_RANGES", "_EXTERNAL_PATH", "_GLOBAL_INDEX")

  lazy val AvroSchema: Schema = new Schema.Parser().parse(
    s"""{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[
       |{"name":"_VERSION","type":"int"},
       |{"name":"_KIND","type":"int"},
       |{"name":"_PARTITION","type":"bytes"},
       |{"name":"_BUCKET","type":"int"},
       |${IndexFileMeta.AvroFieldsJson}
       |]}""".stripMargin)
}
