package lamina.lookup.sort

import java.util.concurrent.ArrayBlockingQueue

import lamina.lookup.compression.{CompressionGate, CompressionType}
import lamina.lookup.io.LocalFileOutput

/** Where a sort writer's filled data blocks go: each is encoded (compressed when that pays, trailer
 *  added), appended to the file, and recorded in the index block under its last key, in the order
 *  the blocks were handed over. The writer fills the block [[current]] returns and hands it over with
 *  [[submit]], which returns the block to fill next. After [[drain]], every block handed over is in
 *  the file and the index, and the sink is no longer used. */
private[sort] trait DataBlockSink {
  def current: BlockWriter

  def submit(lastKey: Array[Byte]): BlockWriter

  /** Hands over the last filled block, if any, and waits until every block is in the file. */
  def drain(lastKey: Array[Byte]): Unit
}

private[sort] object DataBlockSink {

  /** Encodes `block` (data or index), appends it to `out` and empties it; returns where it lies. With a
   *  `gate`, compression is tried only when the gate allows. */
  def writeBlock(block: BlockWriter, compression: CompressionType, scratch: StoredBlock.Scratch,
      out: LocalFileOutput, gate: CompressionGate = null): BlockHandle = {
    val raw = block.finish()
    val tried =
      if (gate == null || compression == CompressionType.None || gate.shouldTry()) compression else CompressionType.None
    val stored = StoredBlock.encode(raw, block.finishedLength, tried, scratch)
    if (gate != null && tried != CompressionType.None) gate.record(scratch.compressed)
    val handle = BlockHandle(out.position, stored - BlockTrailer.EncodedLength)
    out.write(scratch.bytes, 0, stored)
    block.reset()
    handle
  }

  /** Writes one filled data block and records it in the index under its last key. */
  private def append(block: BlockWriter, lastKey: Array[Byte], compression: CompressionType,
      scratch: StoredBlock.Scratch, out: LocalFileOutput, index: BlockWriter, gate: CompressionGate): Unit =
    index.add(lastKey, writeBlock(block, compression, scratch, out, gate).encode())

  /** Encodes each block in the writing thread. */
  final class Inline(blockCapacity: Int, compression: CompressionType, out: LocalFileOutput, index: BlockWriter)
    extends DataBlockSink {
    private val block = new BlockWriter(blockCapacity)
    private val scratch = new StoredBlock.Scratch
    private val gate = new CompressionGate
    override def current: BlockWriter = block
    override def submit(lastKey: Array[Byte]): BlockWriter = {
      append(block, lastKey, compression, scratch, out, index, gate)
      block
    }
    override def drain(lastKey: Array[Byte]): Unit = if (block.entryCount > 0) submit(lastKey)
  }

  /** Encodes blocks on a second thread while the writer fills the next one (compression costs about
   *  as much as building the blocks). Up to [[inFlight]] filled blocks wait or are being encoded;
   *  the writer waits when it runs that far ahead. The queue is deep so that the encoder keeps busy
   *  through the writer's pauses: a large bloom filter is filled in bursts (a batch of hashes every
   *  few dozen blocks, milliseconds each), and with two blocks in flight the encoder sat idle through
   *  each burst, a fifth of a 10 M-key build. The thread starts with the first block handed over, so a
   *  file of one block never starts it. The file's bytes are the same as with [[Inline]]. A failure
   *  on the thread (a write error) is raised in the writer at its next hand-over or at [[drain]]. */
  final class Background(blockCapacity: Int, compression: CompressionType, out: LocalFileOutput,
      index: BlockWriter, fileName: String)
    extends DataBlockSink {
    private final case class Filled(block: BlockWriter, lastKey: Array[Byte])
    private val Stop = Filled(null, null)
    private val depth = inFlight(blockCapacity)
    private val filled = new ArrayBlockingQueue[Filled](depth + 1)
    private val free = new ArrayBlockingQueue[BlockWriter](depth + 1)
    (0 until depth).foreach(_ => free.add(new BlockWriter(blockCapacity)))
    private var block = new BlockWriter(blockCapacity)
    private var thread: Thread = _
    @volatile private var failure: Throwable = _

    override def current: BlockWriter = block

    override def submit(lastKey: Array[Byte]): BlockWriter = {
      raiseFailure()
      if (thread == null) start()
      filled.put(Filled(block, lastKey))
      block = spinTake(free)
      block
    }

    override def drain(lastKey: Array[Byte]): Unit = {
      if (thread == null) {
        // a file of one block: no thread was needed
        if (block.entryCount > 0) append(block, lastKey, compression, new StoredBlock.Scratch, out, index, new CompressionGate)
      } else {
        if (block.entryCount > 0) submit(lastKey)
        filled.put(Stop)
        thread.join()
        thread = null
      }
      raiseFailure()
    }

    private def start(): Unit = {
      thread = new Thread(() => encodeAll(), s"lamina-lookup-encode-$fileName")
      thread.setDaemon(true)
      thread.start()
    }

    private def encodeAll(): Unit = {
      val scratch = new StoredBlock.Scratch
      val gate = new CompressionGate
      var next = spinTake(filled)
      while (next ne Stop) {
        // after a failure, blocks are only emptied and handed back so the writer never waits forever
        if (failure == null)
          try append(next.block, next.lastKey, compression, scratch, out, index, gate) // empties the block
          catch { case t: Throwable => failure = t; next.block.reset() }
        else next.block.reset()
        free.put(next.block)
        next = spinTake(filled)
      }
    }

    /** Polls a while before parking: the other thread usually hands over within microseconds, and
     *  waking a parked thread takes longer than encoding a small block. */
    private def spinTake[T](q: ArrayBlockingQueue[T]): T = {
      var i = 0
      while (i < SpinPolls) {
        val x = q.poll()
        if (x != null) return x
        Thread.onSpinWait()
        i += 1
      }
      q.take()
    }

    private def raiseFailure(): Unit = {
      val t = failure
      if (t != null) throw new java.io.IOException(s"Writing lookup file $fileName failed: ${t.getMessage}", t)
    }
  }

  /** Filled blocks of `blockCapacity` bytes that may wait for or be under encoding at once: as many
   *  as [[InFlightBytes]] hold, at least 2 and at most [[MaxInFlight]] (16 at the default 64 KiB pages). */
  def inFlight(blockCapacity: Int): Int =
    math.max(2L, math.min(MaxInFlight.toLong, InFlightBytes / math.max(1, blockCapacity))).toInt

  val MaxInFlight = 16
  val InFlightBytes: Long = 2L << 20

  /** Smallest block size at which encoding on a second thread pays: smaller blocks take less time
   *  to compress than to hand over between threads. */
  val MinBackgroundBlockSize: Int = 16 * 1024

  /** Polls of an empty queue before a thread parks (each a spin-wait hint, tens of nanoseconds). */
  private val SpinPolls = 1000
}
