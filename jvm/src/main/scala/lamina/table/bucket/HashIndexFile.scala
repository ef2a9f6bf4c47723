package lamina.table.bucket

import java.nio.ByteBuffer

import lamina.errors.CorruptFileException
import lamina.table.{FileStorePaths, FileStoreTable}
import lamina.table.manifest.IndexFileMeta

/** A dynamic-bucket table's hash index of one (partition, bucket), Paimon's `HASH` index file under
 *  `<table>/index/`: the 32-bit hash of every primary key ever written to the bucket (the hash that
 *  Paimon buckets by: of the key's binary row without the partition columns), each as 4 big-endian
 *  bytes, no header, no order, each hash once. Its index manifest entry counts the hashes
 *  (`rowCount`) and gives the file's size, which a reader checks: the file carries no checksum. */
object HashIndexFile {
  val IndexType = "HASH"

  def encode(hashes: Array[Int]): Array[Byte] = {
    val b = ByteBuffer.allocate(hashes.length * 4)
    b.asIntBuffer().put(hashes)
    b.array()
  }

  /** The hashes of `bytes`, read from `path`, which the index manifest describes as `meta`. */
  def decode(bytes: Array[Byte], meta: IndexFileMeta, path: String): Array[Int] = {
    if (bytes.length.toLong != meta.fileSize)
      throw new CorruptFileException(path, -1, s"${meta.fileSize} bytes (as the index manifest says)",
        s"${bytes.length} bytes")
    if (bytes.length % 4 != 0 || bytes.length / 4 != meta.rowCount)
      throw new CorruptFileException(path, -1, s"${meta.rowCount} hashes of 4 bytes", s"${bytes.length} bytes")
    val out = new Array[Int](bytes.length / 4)
    ByteBuffer.wrap(bytes).asIntBuffer().get(out) // big-endian, the buffer's default
    out
  }

  /** Writes `hashes` as a new index file, named as Paimon names index files. */
  def write(table: FileStoreTable, hashes: Array[Int]): IndexFileMeta = {
    val bytes = encode(hashes)
    val meta = IndexFileMeta(IndexType, s"index-${FileStorePaths.newUuid()}-0", bytes.length.toLong,
      hashes.length.toLong, None, None)
    table.fileIO.writeBytes(table.paths.indexFile(meta.fileName), bytes)
    meta
  }

  def read(table: FileStoreTable, meta: IndexFileMeta): Array[Int] = {
    val path = table.paths.indexFile(meta.fileName)
    decode(table.fileIO.readBytes(path), meta, path.toString)
  }
}
