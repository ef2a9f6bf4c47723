package lamina.dv

import java.io.File
import java.nio.file.Files

/** Index files that Apache Paimon 1.4.2's Spark connector wrote (src/test/resources/fixtures/paimon_dv/),
 *  and what they hold. `bitmap32.index`: the vectors of two data files of a primary-key bucket, the
 *  first an array container, the second run containers; `bitmap64.index`: one vector of an append
 *  table with `deletion-vectors.bitmap64`; `index-manifest`: the index manifest (zstd Avro) of the
 *  primary-key table, whose bucket 1 entry names `bitmap32.index` (written there as
 *  `index-41ce9bd5-c582-4920-8a95-779ce6c9e963-1`). */
object PaimonDvFixtures {
  def file(name: String): File = {
    val url = getClass.getResource(s"/fixtures/paimon_dv/$name")
    require(url != null, s"fixture $name is missing")
    new File(url.toURI)
  }
  def bytes(name: String): Array[Byte] = Files.readAllBytes(file(name).toPath)

  val Bitmap32First: Seq[Long] = Seq(2L, 6L, 8L)
  val Bitmap32Second: Seq[Long] = Seq(0L, 1L, 3L, 4L, 7L, 8L, 9L, 11L, 12L, 13L, 15L, 16L)
  val Bitmap32Ranges: Seq[DeletionVectorRange] = Seq(
    DeletionVectorRange("data-069dd6ce-92e2-444c-9089-8886525aace2-0.parquet", 1, 26, Some(3L)),
    DeletionVectorRange("data-71f3a81d-bd09-408a-ba1d-ef6913b415ae-0.parquet", 35, 35, Some(12L)))

  val Bitmap64Positions: Seq[Long] = (0L until 30L by 4L)
  val Bitmap64Range: DeletionVectorRange =
    DeletionVectorRange("data-07eb6995-fe17-4a09-95d3-07e6d6cde11f-0.parquet", 1, 56, Some(8L))

  def hex(s: String): Array[Byte] = s.replaceAll("\\s", "").grouped(2).map(Integer.parseInt(_, 16).toByte).toArray
}
