package lamina.table.manifest

import scala.collection.mutable.ArrayBuffer

import org.apache.avro.generic.GenericRecord
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow

import lamina.format.{BinaryRowCodec, StatsCollector, StatsMode}
import lamina.io.FileIO
import lamina.table.FileStorePaths
import lamina.table.options.ManifestCompression
import lamina.types.DataType

/** Reads and writes manifest files and manifest lists of one table. */
final class ManifestStore(fileIO: FileIO, paths: FileStorePaths, compression: ManifestCompression,
    partitionTypes: Seq[DataType])
  extends Serializable {

  def manifestPath(name: String): Path = paths.manifestPath(name)

  // each read goes through the JVM's cache of decoded manifests (ManifestCache)

  def readList(name: String): Seq[ManifestFileMeta] = cached(name, "manifest list", ManifestFileMeta.fromAvro)

  def readManifest(name: String): Seq[ManifestEntry] = cached(name, "manifest", ManifestEntry.fromAvro)

  /** The entries of an index manifest (in the manifest directory, as Paimon keeps it). */
  def readIndexManifest(name: String): Seq[IndexManifestEntry] =
    cached(name, "index manifest", IndexManifestEntry.fromAvro)

  private def cached[T](name: String, kind: String, decode: GenericRecord => T): Seq[T] = {
    val path = paths.manifestPath(name)
    ManifestCache.read(fileIO, path, kind)(AvroFiles.read(fileIO, path, decode))
  }

  def writeIndexManifest(name: String, entries: Seq[IndexManifestEntry]): Long = {
    val schema = IndexManifestEntry.AvroSchema
    AvroFiles.write(fileIO, paths.manifestPath(name), schema, entries.iterator.map(_.toAvro(schema)), compression)
  }

  def writeList(name: String, metas: Seq[ManifestFileMeta]): Long = {
    val schema = ManifestFileMeta.AvroSchema
    AvroFiles.write(fileIO, paths.manifestPath(name), schema, metas.iterator.map(_.toAvro(schema)), compression)
  }

  /** Writes entries into one or more new manifest files (rolled at `targetSize` bytes of records,
   *  estimated) and returns their metadata. */
  def writeManifests(entries: Seq[ManifestEntry], schemaId: Long, targetEntries: Int = 100000): Seq[ManifestFileMeta] = {
    if (entries.isEmpty) return Seq.empty
    entries.grouped(targetEntries).map { chunk =>
      val name = s"manifest-${FileStorePaths.newUuid()}-0"
      val schema = ManifestEntry.AvroSchema
      val size = AvroFiles.write(fileIO, paths.manifestPath(name), schema, chunk.iterator.map(_.toAvro(schema)), compression)
      ManifestFileMeta(
        fileName = name,
        fileSize = size,
        numAddedFiles = chunk.count(_.isAdd).toLong,
        numDeletedFiles = chunk.count(!_.isAdd).toLong,
        partitionStats = partitionStats(chunk),
        schemaId = schemaId,
        minBucket = Some(chunk.map(_.bucket).min),
        maxBucket = Some(chunk.map(_.bucket).max),
        minLevel = Some(chunk.map(_.file.level).min),
        maxLevel = Some(chunk.map(_.file.level).max))
    }.toSeq
  }

  private def partitionStats(entries: Seq[ManifestEntry]): SimpleStats = {
    if (partitionTypes.isEmpty) return SimpleStats.Empty
    val collector = new StatsCollector(partitionTypes, partitionTypes.indices.toArray,
      Seq.fill(partitionTypes.size)(StatsMode.Full))
    val seen = new java.util.HashSet[java.nio.ByteBuffer]()
    entries.foreach { e =>
      if (seen.add(java.nio.ByteBuffer.wrap(e.partition)))
        collector.update(BinaryRowCodec.deserialize(e.partition, partitionTypes))
    }
    SimpleStats.from(collector.resultSerialized())
  }

  def deleteQuietly(name: String): Unit = fileIO.deleteQuietly(paths.manifestPath(name))

  /** All entries of the manifests named by a snapshot's base and delta lists, in commit order. */
  def readAllEntries(lists: Seq[String], manifestFilter: ManifestFileMeta => Boolean = _ => true): Iterator[ManifestEntry] = {
    val metas = ArrayBuffer.empty[ManifestFileMeta]
    lists.foreach(l => metas ++= readList(l))
    metas.iterator.filter(manifestFilter).flatMap(m => readManifest(m.fileName))
  }

  def decodePartition(bytes: Array[Byte]): InternalRow = BinaryRowCodec.deserialize(bytes, partitionTypes)
}
