package lamina.lookup.compression

import com.github.luben.zstd.{Zstd => ZstdJni, ZstdCompressCtx, ZstdDecompressCtx, ZstdException}
import net.jpountz.lz4.LZ4Factory

/** Block compression codec; `id` is the byte stored in a block trailer. */
sealed abstract class CompressionType(val name: String, val id: Byte) {

  /** Upper bound of compressed bytes for `len` input bytes. */
  def maxCompressedLength(len: Int): Int

  /** Compresses src[srcOff, srcOff+len) into dst at dstOff; returns the compressed length. */
  def compress(src: Array[Byte], srcOff: Int, len: Int, dst: Array[Byte], dstOff: Int): Int

  /** Decodes src[srcOff, srcOff + srcLen) into dst[0, dstLen); false unless it is exactly `dstLen` bytes
   *  of this codec's data. */
  def decompress(src: Array[Byte], srcOff: Int, srcLen: Int, dst: Array[Byte], dstLen: Int): Boolean
}

object CompressionType {

  case object None extends CompressionType("none", 0) {
    override def maxCompressedLength(len: Int): Int = len
    override def compress(src: Array[Byte], srcOff: Int, len: Int, dst: Array[Byte], dstOff: Int): Int = {
      System.arraycopy(src, srcOff, dst, dstOff, len)
      len
    }
    override def decompress(src: Array[Byte], srcOff: Int, srcLen: Int, dst: Array[Byte], dstLen: Int): Boolean =
      srcLen == dstLen && { System.arraycopy(src, srcOff, dst, 0, srcLen); true }
  }

  /** zstd at level 1: fast enough for spilling, and most of zstd's ratio. Native contexts are kept
   *  per thread: creating one per block costs more than compressing a small block.
   *
   *  The match finder's hash table is sized to the block, one slot per 64 bytes ([[hashLog]]), not
   *  level 1's 2^13 slots: on 64 KiB blocks of sorted keys a table of 2^10 slots compressed 35% faster
   *  and 2% smaller, on blocks of row-like values 17% faster and 4% smaller (the table stays in the
   *  core's first-level cache, and recent matches, cheaper to encode, replace old ones). Decoding does
   *  not depend on it. */
  case object Zstd extends CompressionType("zstd", 1) {
    val Level = 1
    val MinHashLog = 6
    val MaxHashLog = 13

    /** log2 of the hash table's slots for a block of `len` bytes: floor(log2 len) - 6, within
     *  [[MinHashLog]] (zstd's least) and [[MaxHashLog]] (level 1's own). */
    def hashLog(len: Int): Int =
      math.max(MinHashLog, math.min(MaxHashLog, 31 - Integer.numberOfLeadingZeros(math.max(1, len)) - 6))

    private final class Compressor {
      val ctx: ZstdCompressCtx = new ZstdCompressCtx().setLevel(Level)
      private var tableLog = -1
      def sizedFor(len: Int): ZstdCompressCtx = {
        val h = hashLog(len)
        if (h != tableLog) { ctx.setHashLog(h); tableLog = h }
        ctx
      }
    }
    private val compressor = ThreadLocal.withInitial[Compressor](() => new Compressor)
    private val decompressCtx = ThreadLocal.withInitial[ZstdDecompressCtx](() => new ZstdDecompressCtx())
    override def maxCompressedLength(len: Int): Int = ZstdJni.compressBound(len.toLong).toInt
    override def compress(src: Array[Byte], srcOff: Int, len: Int, dst: Array[Byte], dstOff: Int): Int =
      compressor.get().sizedFor(len).compressByteArray(dst, dstOff, dst.length - dstOff, src, srcOff, len)
    override def decompress(src: Array[Byte], srcOff: Int, srcLen: Int, dst: Array[Byte], dstLen: Int): Boolean =
      try decompressCtx.get().decompressByteArray(dst, 0, dstLen, src, srcOff, srcLen) == dstLen
      catch { case _: ZstdException => false }
  }

  case object Lz4 extends CompressionType("lz4", 2) {
    private lazy val factory = LZ4Factory.fastestInstance()
    override def maxCompressedLength(len: Int): Int = factory.fastCompressor().maxCompressedLength(len)
    override def compress(src: Array[Byte], srcOff: Int, len: Int, dst: Array[Byte], dstOff: Int): Int =
      factory.fastCompressor().compress(src, srcOff, len, dst, dstOff, dst.length - dstOff)
    override def decompress(src: Array[Byte], srcOff: Int, srcLen: Int, dst: Array[Byte], dstLen: Int): Boolean =
      try factory.safeDecompressor().decompress(src, srcOff, srcLen, dst, 0, dstLen) == dstLen
      catch { case _: net.jpountz.lz4.LZ4Exception => false }
  }

  val values: Seq[CompressionType] = Seq(None, Zstd, Lz4)

  def fromName(name: String): Option[CompressionType] = values.find(_.name == name)

  def fromId(id: Byte): Option[CompressionType] = values.find(_.id == id)
}
