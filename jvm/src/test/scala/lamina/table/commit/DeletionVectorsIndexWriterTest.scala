package lamina.table.commit

import org.apache.hadoop.fs.Path
import org.scalatest.funsuite.AnyFunSuite

import lamina.dv.{BitmapDeletionVector, DeletionFile, DeletionVector, DeletionVectorsIndexFile}
import lamina.table.{FileStoreTable, TempTables, TestTables}

/** [[DeletionVectorsIndexWriter]]: a bucket-unaware append table's vectors go to index files rolled at
 *  the table's `deletion-vector.index-file.target-size`, named as one Paimon writer names them, each
 *  vector read back from the file its range names; any other table's bucket keeps one index file. */
class DeletionVectorsIndexWriterTest extends AnyFunSuite with TempTables {

  private def table(options: Map[String, String]): FileStoreTable =
    newTable(TestTables.eventsSchema(Map("deletion-vectors.enabled" -> "true") ++ options))

  /** 12 vectors of 1 to 12 positions: entries of 26 to 48 bytes. */
  private val vectors: Seq[(String, DeletionVector)] =
    (1 to 12).map(i => f"data-$i%02d.parquet" -> BitmapDeletionVector((0 until i).map(p => p * 3L)))

  private def indexFiles(t: FileStoreTable): Set[String] =
    t.fileIO.list(t.paths.indexDir).map(_.getPath.getName).filter(_.startsWith("index-")).toSet

  test("rolls at the target size: files index-<uuid>-0, -1, ... holding every vector once, in order") {
    val t = table(Map("deletion-vector.index-file.target-size" -> "100 b"))
    val metas = DeletionVectorsIndexWriter.write(t, vectors)
    assert(metas.size > 2)
    val uuid = metas.head.fileName.stripSuffix("-0")
    assert(metas.map(_.fileName) === metas.indices.map(n => s"$uuid-$n"))
    assert(indexFiles(t) === metas.map(_.fileName).toSet)
    assert(metas.flatMap(_.dvRanges.get.map(_.dataFileName)) === vectors.map(_._1))
    metas.foreach { m =>
      val path = new Path(t.paths.indexDir, m.fileName)
      assert(t.fileIO.fileSize(path) === m.fileSize)
      assert(m.indexType === DeletionVectorsIndexFile.IndexType)
      assert(m.rowCount === m.dvRanges.get.size)
      assert(m.dvRanges.get.last.offset <= 100) // closed at the first entry that takes it past the target
      m.dvRanges.get.foreach { r =>
        assert(DeletionVectorsIndexFile.read(t.fileIO, DeletionFile(path.toString, m.fileSize, r)) ===
          vectors.toMap.apply(r.dataFileName))
      }
    }
    assert(metas.init.forall(_.fileSize > 100))
  }

  test("a target of 1 byte writes one file per vector; the default (2 mb) one file; no vectors no file") {
    val tiny = table(Map("deletion-vector.index-file.target-size" -> "1 b"))
    assert(DeletionVectorsIndexWriter.write(tiny, vectors).map(_.dvRanges.get.map(_.dataFileName)) ===
      vectors.map(v => Seq(v._1)))
    val default = table(Map.empty)
    val one = DeletionVectorsIndexWriter.write(default, vectors)
    assert(one.size === 1 && one.head.fileName.endsWith("-0") && one.head.rowCount === 12)
    val none = table(Map.empty)
    assert(DeletionVectorsIndexWriter.write(none, Seq.empty) === Seq.empty)
    assert(indexFiles(none) === Set.empty)
  }

  test("a fixed-bucket append table and a primary-key table keep one index file per bucket, whatever the target") {
    val tiny = Map("deletion-vector.index-file.target-size" -> "1 b")
    val bucketed = table(tiny ++ Map("bucket" -> "2", "bucket-key" -> "id"))
    val pk = newTable(TestTables.eventsSchema(Map("deletion-vectors.enabled" -> "true", "bucket" -> "2") ++ tiny,
        partitioned = false).copy(primaryKeys = Seq("id")))
    for (t <- Seq(bucketed, pk)) {
      val metas = DeletionVectorsIndexWriter.write(t, vectors)
      assert(metas.map(_.dvRanges.get.map(_.dataFileName)) === Seq(vectors.map(_._1)), t.name)
      assert(indexFiles(t) === metas.map(_.fileName).toSet)
    }
  }
}
