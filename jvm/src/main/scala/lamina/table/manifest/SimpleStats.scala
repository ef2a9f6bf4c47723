package lamina.table.manifest

import scala.jdk.CollectionConverters._

import org.apache.avro.Schema
import org.apache.avro.generic.{GenericData, GenericRecord}
import org.apache.hadoop.fs.Path

import lamina.format.{BinaryRowCodec, SimpleStats => CollectedStats, StatsCollector, StatsMode, ValueStats}
import lamina.io.PathNames

/** Min values, max values (each a serialized Paimon BinaryRow over the stats columns) and per-column
 *  null counts (an entry may be null: unknown). The `_KEY_STATS` / `_VALUE_STATS` /
 *  `_PARTITION_STATS` records of manifests. Invariant: both rows and the counts have one slot per
 *  stats column. */
final case class SimpleStats(minValues: Array[Byte], maxValues: Array[Byte], nullCounts: Seq[Option[Long]]) {
  def toAvro(schema: Schema): GenericRecord = {
    val r = new GenericData.Record(schema)
    r.put("_MIN_VALUES", java.nio.ByteBuffer.wrap(minValues))
    r.put("_MAX_VALUES", java.nio.ByteBuffer.wrap(maxValues))
    r.put("_NULL_COUNTS", nullCounts.map(_.map(java.lang.Long.valueOf).orNull).asJava)
    r
  }
}

object SimpleStats {

  /** Stats over no columns: empty rows (arity 0) and no counts. */
  lazy val Empty: SimpleStats = {
    val empty = BinaryRowCodec.serialize(
      org.apache.spark.sql.catalyst.InternalRow.empty, Seq.empty)
    SimpleStats(empty, empty, Seq.empty)
  }

  def from(s: CollectedStats): SimpleStats =
    SimpleStats(s.minValues, s.maxValues, s.nullCounts.toSeq.map(c => Option(c).map(_.longValue())))

  /** The value statistics of a data file just closed at `path` and the `_VALUE_STATS_COLS` to record
   *  with them: none under `metadata.stats-mode = none` (an empty column list), else every column
   *  (None), completed from the file's footer where `values` takes them from there. */
  def ofFile(values: ValueStats, collector: StatsCollector, path: Path): (SimpleStats, Option[Seq[String]]) =
    if (values.mode == StatsMode.NoStats) (Empty, Some(Seq.empty[String]))
    else (from(values.complete(collector, path).resultSerialized()), None)

  def fromAvro(r: GenericRecord): SimpleStats = {
    val counts = r.get("_NULL_COUNTS") match {
      case null => Seq.empty
      case l: java.util.List[_] => l.asScala.map {
          case null => None
          case v: java.lang.Long => Some(v.longValue())
          case v: java.lang.Integer => Some(v.longValue())
        }.toSeq
    }
    SimpleStats(AvroUtil.bytes(r.get("_MIN_VALUES")), AvroUtil.bytes(r.get("_MAX_VALUES")), counts)
  }

  val AvroFields: String =
    """[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},
      |{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]""".stripMargin
}

private[manifest] object AvroUtil {
  def bytes(v: Any): Array[Byte] = v match {
    case null => null
    case b: java.nio.ByteBuffer =>
      val d = b.duplicate()
      val out = new Array[Byte](d.remaining())
      d.get(out)
      out
    case a: Array[Byte] => a
  }
  def str(v: Any): String = if (v == null) null else v.toString

  /** A file name a manifest records: one path segment, or the record is damaged (reported by
   *  [[AvroFiles.read]] as a corrupt file naming the manifest). */
  def fileName(v: Any): String = {
    val name = str(v)
    PathNames.whyNotSegment(name).foreach(why =>
      throw new IllegalStateException(s"file name '${PathNames.printable(name)}' is not one path segment: $why"))
    name
  }
  def strList(v: Any): Seq[String] = v match {
    case null => Seq.empty
    case l: java.util.List[_] => l.asScala.map(_.toString).toSeq
  }
  def optLong(r: GenericRecord, f: String): Option[Long] =
    if (r.getSchema.getField(f) == null) None
    else r.get(f) match {
      case null => None
      case v: java.lang.Number => Some(v.longValue())
    }
  def optInt(r: GenericRecord, f: String): Option[Int] = optLong(r, f).map(_.toInt)
}
