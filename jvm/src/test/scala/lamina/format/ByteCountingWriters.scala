package lamina.format

import java.io.{File, FileOutputStream}
import java.net.URI

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType

import lamina.io.SerializableConfiguration

/** Data-file writers that write one byte per row (no Spark format): enough for a file and its size,
 *  nothing to decode. For tests of rolling and clean-up. */
object ByteCountingWriters {
  val writers: DataFileWriters = DataFileWriters((path: String, _: Int) =>
      new DataFileWriter {
        private val out = {
          val file = new File(new URI(new Path(path).toUri.toString))
          file.getParentFile.mkdirs()
          new FileOutputStream(file)
        }
        private var written = 0L
        override def write(row: InternalRow): Unit = { out.write(1); written += 1 }
        override def close(): Unit = out.close()
        override def length: Long = written
      }, new SerializableConfiguration(new Configuration()), new StructType(), DataFileFormat.Orc)
}
