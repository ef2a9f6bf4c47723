package lamina.format

import org.apache.spark.sql.vectorized.ColumnarBatch

import lamina.errors.CorruptFileException

/** Reading data files safely: failures to read or decode a file are reported as corrupt files. */
object DataFileGuard {

  /** Runs `body`, a step of reading data file `path`, reporting a failure to read or decode the file
   *  as a [[CorruptFileException]]. An interrupted read (a cancelled task) is not corruption. */
  @inline def asCorrupt[T](path: => String, tableName: => String)(body: => T): T =
    try body
    catch {
      case e: java.io.FileNotFoundException =>
        throw new CorruptFileException(path, -1, s"data file of table $tableName", "missing file", "", e)
      case e @ (_: java.io.InterruptedIOException | _: java.nio.channels.ClosedByInterruptException) => throw e
      case e @ (_: java.io.IOException | _: org.apache.parquet.io.ParquetDecodingException) =>
        throw corrupt(path, tableName, e)
      case e: RuntimeException if thrownByDecoder(e) => throw corrupt(path, tableName, e)
    }

  /** Code that decodes data files: bytes it rejects (a null where a page header needs a field, a
   *  schema name the footer garbled, an offset outside the file) surface as runtime exceptions
   *  thrown from within it or from the JDK code it calls. */
  private val DecoderPackages = Seq("org.apache.parquet.", "shaded.parquet.", "org.apache.orc.", "org.apache.avro.",
    "lamina.format.avro.",
    "com.github.luben.zstd.", "org.xerial.snappy.", "io.airlift.compress.", "net.jpountz.")

  /** How deep in the stack a decoder frame may lie: it may have called into the JDK (a buffer's limit). */
  private val DecoderFrames = 8

  private def thrownByDecoder(e: Throwable): Boolean =
    e.getStackTrace.iterator.take(DecoderFrames).exists(f => DecoderPackages.exists(f.getClassName.startsWith)) ||
      Option(e.getMessage).exists(_.contains("is not a Parquet file"))

  /** `it` with each step under [[asCorrupt]], and, when `expectedRows` >= 0, a check at its end that it
   *  yielded that many rows (a batch counts its rows). Generic, so that no element is cast: a reader
   *  built `returningBatch` yields batches through an iterator typed as one of rows. */
  def guarded[T](it: Iterator[T], path: String, tableName: String, expectedRows: Long = -1L): Iterator[T] =
    new Iterator[T] {
      private var rows = 0L
      override def hasNext: Boolean = {
        val more = asCorrupt(path, tableName)(it.hasNext)
        if (!more && expectedRows >= 0 && rows != expectedRows)
          throw new CorruptFileException(path, -1,
            s"$expectedRows rows (the manifest's count) in a data file of table $tableName",
            s"$rows rows")
        more
      }
      override def next(): T = {
        val x = asCorrupt(path, tableName)(it.next())
        rows += (x match { case b: ColumnarBatch => b.numRows; case _ => 1 })
        x
      }
    }

  private def corrupt(path: String, tableName: String, e: Throwable) =
    new CorruptFileException(path, -1, s"a readable data file of table $tableName", "bytes its decoder rejects",
      String.valueOf(e.getMessage), e)
}
