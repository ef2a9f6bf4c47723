package lamina.mergetree

import java.io.File
import java.net.URI

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.format.{BinaryRowCodec, ByteCountingWriters, DataFileDir}
import lamina.table.{FileStoreTable, TestTables}
import lamina.types.IntType

/** The primary-key writer's rolling, with a data-file writer that only counts rows (no Spark format):
 *  a new file at the target size and wherever a key does not ascend. */
class KeyValueFileWriterTest extends AnyFunSuite {
  private def table(): FileStoreTable = {
    val dir = TestTables.tempDir("kv-writer")
    val s = TestTables.eventsSchema(partitioned = false)
    TestTables.createTable(dir,
      s.copy(primaryKeys = Seq("id"),
        fields = s.fields.map(f => if (f.name == "id") f.copy(dataType = IntType(nullable = false)) else f)))
  }

  /** Writes one byte per row: enough for a file size, nothing to decode. */
  private val counting = ByteCountingWriters.writers

  private def row(id: Int) = InternalRow(id, UTF8String.fromString(s"v$id"), UTF8String.fromString("p"))

  private def writer(t: FileStoreTable, target: Long, unique: Boolean = false) =
    t.keyValueFiles(counting).copy(targetFileSize = target)
      .writer(Array.emptyByteArray, DataFileDir.local(new Path(t.path, "bucket-0")), 0, 100L, uniqueKeys = unique)

  private def keyOf(bytes: Array[Byte]) = BinaryRowCodec.deserialize(bytes, Seq(IntType(nullable = false))).getInt(0)

  test("a key that does not ascend starts the next file; each file's keys and sequence numbers are its own") {
    val t = table()
    val w = writer(t, Long.MaxValue)
    Seq(1, 2, 3, 2, 5, 5).foreach(id => w.write(row(id), RowKind.Insert))
    val files = w.finish()
    assert(files.map(f => (keyOf(f.minKey), keyOf(f.maxKey), f.rowCount)) == Seq((1, 3, 3L), (2, 5, 2L), (5, 5, 1L)))
    assert(files.map(f => (f.minSequenceNumber, f.maxSequenceNumber)) == Seq((100L, 102L), (103L, 104L), (105L, 105L)))
    assert(files.forall(f => f.level == 0 && f.deleteRowCount.contains(0L)))
    assert(files.forall(f => f.fileSize == f.rowCount))
  }

  test("a file rolls at the target size, as the data-file writer reports the bytes written") {
    val t = table()
    val w = writer(t, 1L)
    (1 to 3).foreach(id => w.write(row(id), RowKind.Insert))
    assert(w.finish().map(_.rowCount) == Seq(1L, 1L, 1L))
    // one byte a row on disk, far more in memory: the file holds about 2500 rows, not the ~60 the
    // rows' in-memory size would allow
    val bytes = writer(table(), 2500L)
    (1 to 6000).foreach(id => bytes.write(row(id), RowKind.Insert))
    val files = bytes.finish()
    val counts = files.map(_.rowCount)
    assert(counts.sum == 6000 && counts.size == 2 && counts.head >= 2500 && counts.head < 3600, counts)
    assert(files.forall(f => f.fileSize == f.rowCount))
  }

  test("deletes are counted; abort removes every file written") {
    val t = table()
    val w = writer(t, 2 * 1024 * 1024)
    w.write(row(1), RowKind.Insert)
    w.write(row(2), RowKind.Delete)
    w.write(row(1), RowKind.Insert)
    val dir = new File(new URI(new Path(t.path, "bucket-0").toUri.toString))
    assert(dir.list().length == 2)
    w.abort()
    assert(dir.list().isEmpty)
    val again = writer(t, Long.MaxValue)
    again.write(row(1), RowKind.Insert)
    again.write(row(2), RowKind.Delete)
    assert(again.finish().map(_.deleteRowCount) == Seq(Some(1L)))
  }

  test("with unique keys, a repeated key fails the write naming it") {
    val w = writer(table(), Long.MaxValue, unique = true)
    w.write(row(7), RowKind.Insert)
    val e = intercept[BadInputException](w.write(row(7), RowKind.Insert))
    assert(e.getMessage.startsWith("Table db.t: more than one written row has primary key (id=7)."))
  }
}
