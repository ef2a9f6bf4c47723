package lamina.table.manifest

import org.apache.avro.Schema
import org.apache.avro.generic.{GenericData, GenericRecord}

/** One ADD or DELETE of a data file in a (partition, bucket): a record of a manifest file.
 *  Invariant: a DELETE names a file that an earlier ADD of the same identifier introduced. */
final case class ManifestEntry(
    kind: Int,
    partition: Array[Byte],
    bucket: Int,
    totalBuckets: Int,
    file: DataFileMeta) {

  def isAdd: Boolean = kind == ManifestEntry.Add

  /** What makes two entries refer to the same file, as Paimon's identifier: its place and name, and
   *  its extra files, embedded index and external path (a file whose index was rewritten is another
   *  entry: a DELETE of its earlier entry no longer removes it). */
  def identifier: ManifestEntry.Identifier =
    ManifestEntry.Identifier(java.util.Arrays.hashCode(partition), new String(partition, "ISO-8859-1"),
      bucket, file.level, file.fileName, file.extraFiles, file.embeddedIndex.map(new String(_, "ISO-8859-1")),
      file.externalPath)

  def toAvro(schema: Schema): GenericRecord = {
    val r = new GenericData.Record(schema)
    r.put("_VERSION", ManifestEntry.Version)
    r.put("_KIND", kind)
    r.put("_PARTITION", java.nio.ByteBuffer.wrap(partition))
    r.put("_BUCKET", bucket)
    r.put("_TOTAL_BUCKETS", totalBuckets)
    r.put("_FILE", file.toAvro(schema.getField("_FILE").schema()))
    r
  }
}

object ManifestEntry {
  val Add = 0
  val Delete = 1
  val Version = 2

  final case class Identifier(partitionHash: Int, partition: String, bucket: Int, level: Int, fileName: String,
      extraFiles: Seq[String], embeddedIndex: Option[String], externalPath: Option[String])

  def fromAvro(r: GenericRecord): ManifestEntry = ManifestEntry(
    kind = r.get("_KIND").asInstanceOf[Number].intValue(),
    partition = AvroUtil.bytes(r.get("_PARTITION")),
    bucket = r.get("_BUCKET").asInstanceOf[Number].intValue(),
    totalBuckets = r.get("_TOTAL_BUCKETS").asInstanceOf[Number].intValue(),
    file = DataFileMeta.fromAvro(r.get("_FILE").asInstanceOf[GenericRecord]))

  lazy val AvroSchema: Schema = new Schema.Parser().parse(
    s"""{"type":"record","name":"ManifestEntry","fields":[
       |{"name":"_VERSION","type":"int"},
       |{"name":"_KIND","type":"int"},
       |{"name":"_PARTITION","type":"bytes"},
       |{"name":"_BUCKET","type":"int"},
       |{"name":"_TOTAL_BUCKETS","type":"int"},
       |{"name":"_FILE","type":${DataFileMeta.AvroSchemaJson}}
       |]}""".stripMargin)

  /** Folds ADDs and DELETEs in commit order into the live set: a DELETE cancels the ADD it names. */
  def mergeLive(entries: Iterator[ManifestEntry]): Seq[ManifestEntry] =
    mergeLive[Unit](entries.map(e => ((), e)), (_, _) => ())

  /** As above, for entries tagged with where they come from; `orphanDelete` is told of a DELETE that
   *  no earlier ADD introduced (corruption, when every manifest of a snapshot is read). */
  def mergeLive[S](entries: Iterator[(S, ManifestEntry)], orphanDelete: (S, ManifestEntry) => Unit): Seq[ManifestEntry] = {
    val live = new java.util.LinkedHashMap[Identifier, ManifestEntry]()
    entries.foreach { case (source, e) =>
      val id = e.identifier
      if (e.isAdd) live.put(id, e) else if (live.remove(id) == null) orphanDelete(source, e)
    }
    import scala.jdk.CollectionConverters._
    live.values().asScala.toSeq
  }
}
