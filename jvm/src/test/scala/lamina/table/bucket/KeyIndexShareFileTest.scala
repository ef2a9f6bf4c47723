package lamina.table.bucket

import java.io.{ByteArrayOutputStream, DataOutputStream}
import java.nio.file.Files

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.io.FileIO

class KeyIndexShareFileTest extends AnyFunSuite {
  private val fileIO = FileIO(new Configuration())

  private def chunk(records: (Int, Int, Array[Byte])*): Array[Byte] = {
    val bytes = new ByteArrayOutputStream()
    val out = new DataOutputStream(bytes)
    records.foreach { case (p, b, k) => KeyIndexShareFile.append(out, p, b, k) }
    out.flush()
    bytes.toByteArray
  }

  private def readAll(path: Path): Seq[(Int, Int, Seq[Byte])] = {
    val got = ArrayBuffer.empty[(Int, Int, Seq[Byte])]
    KeyIndexShareFile.read(fileIO, path)((p, b, k) => got += ((p, b, k.toSeq)))
    got.toSeq
  }

  test("records written in chunks read back in order, each bucket's keys counted; the sizes are their parts'") {
    val dir = Files.createTempDirectory("share").toString
    val path = KeyIndexShares.fileOf(dir, 3)
    val counts = KeyIndexShareFile.write(fileIO, path,
      Iterator(chunk((0, 1, Array[Byte](1, 2)), (1, 0, Array.empty)), chunk((0, 1, Array[Byte](9)))))
    assert(counts === Map((0, 1) -> 2L, (1, 0) -> 1L))
    assert(readAll(path) === Seq((0, 1, Seq[Byte](1, 2)), (1, 0, Seq.empty[Byte]), (0, 1, Seq[Byte](9))))
    assert(fileIO.fileSize(path) === 3 * KeyIndexShareFile.RecordHeaderBytes + 3 + KeyIndexShareFile.TrailerBytes)
    // no temporary sibling stays
    assert(fileIO.list(new Path(dir)).map(_.getPath.getName) === Seq("group-3"))
    assert(KeyIndexShareFile.write(fileIO, KeyIndexShares.fileOf(dir, 0), Iterator.empty).isEmpty)
    assert(readAll(KeyIndexShares.fileOf(dir, 0)).isEmpty)
  }

  test("a cut or miscounted file is corrupt, never read short: a key left out would be placed twice") {
    val dir = Files.createTempDirectory("share").toString
    val path = KeyIndexShares.fileOf(dir, 0)
    KeyIndexShareFile.write(fileIO, path, Iterator(chunk((0, 0, Array[Byte](1)), (0, 0, Array[Byte](2)))))
    val bytes = fileIO.readBytes(path)
    val cut = new Path(dir, "cut")
    fileIO.writeBytes(cut, bytes.take(KeyIndexShareFile.RecordHeaderBytes + 1) ++ bytes.takeRight(4))
    val e = intercept[CorruptFileException](readAll(cut))
    assert(e.getMessage.contains(cut.toString))
    val miscounted = new Path(dir, "miscounted")
    val wrong = bytes.clone()
    wrong(wrong.length - KeyIndexShareFile.TrailerBytes + 7) = 3
    fileIO.writeBytes(miscounted, wrong)
    assert(intercept[CorruptFileException](readAll(miscounted)).getMessage.contains("expected 2 records, found 3"))
    val tiny = new Path(dir, "tiny")
    fileIO.writeBytes(tiny, Array[Byte](1, 2))
    assert(intercept[CorruptFileException](readAll(tiny)).getMessage.contains("at least 12 bytes"))
  }
}
