package lamina.table.bucket

import java.io.{ByteArrayOutputStream, DataOutputStream}

import scala.collection.mutable

import org.apache.hadoop.fs.Path

import lamina.format.{BinaryRowCodec, Bucket, KeyHashFunction}
import lamina.io.PathNames
import lamina.mergetree.KeyValueReaders
import lamina.table.FileStoreTable
import lamina.table.scan.DataSplit

/** Where the bootstrap scan of a cross-partition upsert write left the table's live keys, split by
 *  assigner group: `dir` holds one [[KeyIndexShareFile]] per group (`group-<g>`), whose records index
 *  `partitions` (serialized partitions); `liveKeys` is the live key count of every bucket read, by
 *  partition index and bucket (a bucket with none counted 0). Removed by the write once it commits or
 *  aborts. */
final case class KeyIndexShares(dir: String, partitions: IndexedSeq[Array[Byte]], liveKeys: Map[(Int, Int), Long]) {
  def fileOf(group: Int): Path = KeyIndexShares.fileOf(dir, group)
}

object KeyIndexShares {

  /** The bytes of records a chunk of one group collects before it is handed on. */
  val ChunkBytes: Int = 32 * 1024

  /** The directory of one write's shares: `key-index/<write>` under the table's, which
   *  `remove_orphan_files` clears if a killed write left it. */
  def dirOf(table: FileStoreTable, write: String): Path =
    PathNames.descendant(table.path, Seq("key-index", write))

  def fileOf(dir: String, group: Int): Path = PathNames.child(PathNames.of(dir), s"group-$group")

  /** The live keys of `split` (deletion vectors applied, each key merged), partition index `partId`,
   *  as chunks of [[KeyIndexShareFile]] records, each chunk tagged with its keys' assigner group out
   *  of `groups` (the group of a key's bucket-key hash, as the write clusters its rows). */
  def tagged(table: FileStoreTable, readers: KeyValueReaders, split: DataSplit, partId: Int,
      groups: Int): Iterator[(Int, Array[Byte])] = new Iterator[(Int, Array[Byte])] {
    private val keyTypes = table.schema.trimmedPrimaryKeys.map(k => table.schema.field(k).get.dataType)
    private val ordinals = keyTypes.indices.toArray
    private val hashOf = new KeyHashFunction(ordinals, keyTypes)
    private val records = readers.mergedRecords(split, skipLevel0 = false, dropDeletes = true)
    private val buffers = new Array[ByteArrayOutputStream](groups)
    private val outs = new Array[DataOutputStream](groups)
    private val ready = mutable.Queue.empty[(Int, Array[Byte])]
    private var drained = false

    override def hasNext: Boolean = { fill(); ready.nonEmpty }

    override def next(): (Int, Array[Byte]) = { fill(); ready.dequeue() }

    private def handOn(g: Int): Unit = {
      outs(g).flush()
      ready += g -> buffers(g).toByteArray
      buffers(g).reset()
    }

    private def fill(): Unit = while (ready.isEmpty && !drained) {
      if (records.hasNext) {
        val key = records.next().key
        val g = Bucket.bucketOfHash(hashOf(key), groups)
        if (outs(g) == null) { buffers(g) = new ByteArrayOutputStream(); outs(g) = new DataOutputStream(buffers(g)) }
        KeyIndexShareFile.append(outs(g), partId, split.bucket, BinaryRowCodec.encode(key, ordinals, keyTypes))
        if (buffers(g).size() >= ChunkBytes) handOn(g)
      } else {
        drained = true
        outs.indices.foreach(g => if (outs(g) != null && buffers(g).size() > 0) handOn(g))
      }
    }
  }
}
