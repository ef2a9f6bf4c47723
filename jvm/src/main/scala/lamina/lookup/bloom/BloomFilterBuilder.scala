package lamina.lookup.bloom

/** Adds key hashes to a [[BloomFilter]] being written, in an order that is cheap for memory.
 *
 *  A filter that fits a core's cache takes each hash as it comes. A larger one would take a cache
 *  miss per key (the block of a hash is random), so hashes are gathered in batches, grouped by the
 *  high bits of their block number (one counting-sort pass into at most 4096 groups, each a run of
 *  neighbouring blocks of at most 1/4096 of the filter, 2 KiB for 10 M keys) and added group by group: the filter's memory is then
 *  walked forwards, which the hardware prefetches, and each group's stretch stays in the core's cache
 *  while it is filled. A bloom filter is the OR of its keys' bits, so the
 *  order changes nothing in its bytes. Not thread-safe. */
final class BloomFilterBuilder(filter: BloomFilter) {
  import BloomFilterBuilder._

  private val direct = filter.bits.length <= DirectMaxBytes
  private val batchSize =
    math.max(MinBatch.toLong, math.min(MaxBatch.toLong, 2L * filter.blockCount)).toInt
  private val pending = if (direct) null else new Array[Long](batchSize)
  private val ordered = if (direct) null else new Array[Long](batchSize)
  private val counts = if (direct) null else new Array[Int](RadixBuckets + 1)

  /** Block numbers shifted right by this fall below [[RadixBuckets]]. */
  private val shift = {
    val highestBlock = math.max(1, filter.blockCount - 1)
    math.max(0, 32 - Integer.numberOfLeadingZeros(highestBlock) - RadixBits)
  }
  private var count = 0

  def add(hash: Long): Unit =
    if (direct) filter.addHash(hash)
    else {
      pending(count) = hash
      count += 1
      if (count == batchSize) flush()
    }

  /** The filter with every hash added so far. */
  def finish(): BloomFilter = {
    if (!direct) flush()
    filter
  }

  private def flush(): Unit = {
    group(pending, ordered)
    var i = 0
    while (i < count) {
      filter.addHash(ordered(i))
      i += 1
    }
    count = 0
  }

  /** A counting sort of from[0, count) into `to` by the block number's bits from `shift` up. */
  private def group(from: Array[Long], to: Array[Long]): Unit = {
    java.util.Arrays.fill(counts, 0)
    var i = 0
    while (i < count) {
      counts((filter.blockOf(from(i)) >>> shift) + 1) += 1
      i += 1
    }
    var b = 0
    while (b < RadixBuckets) {
      counts(b + 1) += counts(b)
      b += 1
    }
    i = 0
    while (i < count) {
      val h = from(i)
      val bucket = filter.blockOf(h) >>> shift
      to(counts(bucket)) = h
      counts(bucket) += 1
      i += 1
    }
  }
}

object BloomFilterBuilder {

  /** Filters up to this size take hashes one by one: they stay in a core's cache. */
  val DirectMaxBytes: Int = 1 << 20
  private val RadixBits = 12
  private val RadixBuckets = 1 << RadixBits

  /** Batches hold about two hashes per filter block (each block is then visited with work to do),
   *  within these bounds (8 bytes a hash, twice). */
  private val MinBatch = 1 << 16
  private val MaxBatch = 1 << 22
}
