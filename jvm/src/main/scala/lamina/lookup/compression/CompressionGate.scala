package lamina.lookup.compression

/** Decides, block by block, whether a writer tries to compress. After [[CompressionGate.MissesToSkip]]
 *  tries in a row that did not pay (saved less than 1/8), it tries only every
 *  [[CompressionGate.ProbeEvery]]-th block, until a try pays again.
 *
 *  Compressing incompressible blocks (random values, already compressed bytes) costs as much as
 *  compressing any other and is thrown away: trying every block of 1M keys with random values made the
 *  build (64 KiB zstd blocks) 5 times slower with 64-byte values and 8 times with 500-byte ones. A probe
 *  notices when the data turns compressible again, so at most ProbeEvery - 1 blocks that would have paid
 *  are stored as they are. Telling those apart without compressing them is not possible soundly: no
 *  cheap measure bounds what zstd saves (a byte histogram misses repeated strings; finding every repeat
 *  in a block is a match finder's work, the cost of compressing), and a sample can miss what the rest of
 *  the block repeats. The file format is unaffected: each block's trailer says how it is stored. Not
 *  thread-safe: one per encoding thread. */
final class CompressionGate {
  private var misses = 0
  private var skipped = 0

  /** Whether to try compressing the next block; call once per block. */
  def shouldTry(): Boolean =
    if (misses < CompressionGate.MissesToSkip) true
    else {
      skipped += 1
      if (skipped >= CompressionGate.ProbeEvery) { skipped = 0; true }
      else false
    }

  /** The outcome of a try that [[shouldTry]] allowed. */
  def record(paid: Boolean): Unit =
    if (paid) { misses = 0; skipped = 0 }
    else if (misses < CompressionGate.MissesToSkip) misses += 1
}

object CompressionGate {
  val MissesToSkip = 4
  val ProbeEvery = 16
}
