package lamina.lookup

import java.io.File

import lamina.lookup.compression.CompressionType

/** The checked-in fixtures under src/test/resources/golden/: what each holds and how it is written. */
object GoldenFiles {

  /** 40 entries: the first 20 with 4-byte values (aligned blocks), the rest with values of 0 to 12
   *  bytes (unaligned blocks). */
  val entries: IndexedSeq[(Array[Byte], Array[Byte])] = (0 until 40).map { i =>
    val key = f"key-$i%03d".getBytes("US-ASCII")
    val value = if (i < 20) f"v$i%03d".getBytes("US-ASCII") else ("ab" * (i % 7)).getBytes("US-ASCII")
    (key, value)
  }

  final case class Golden(name: String, options: LookupOptions)

  val all: Seq[Golden] = Seq(
    Golden("sort-none.lookup", LookupOptions(cachePageSize = 64, compression = CompressionType.None, bloomFilterFpp = 0.01)),
    Golden("sort-lz4.lookup", LookupOptions(cachePageSize = 256, compression = CompressionType.Lz4, bloomFilterEnabled = false)),
    Golden("hash.lookup", LookupOptions(cachePageSize = 64, localFileType = LocalFileType.Hash)))

  def resource(name: String): File = {
    val url = getClass.getResource(s"/golden/$name")
    require(url != null, s"golden file $name is missing; run GoldenFiles.main to write it")
    new File(url.toURI)
  }

  /** Writes the golden files into the source tree: `Test/runMain lamina.lookup.GoldenFiles <dir>`.
   *  Only for an intended format change, together with a new format version. */
  def main(args: Array[String]): Unit = {
    val dir = new File(args.headOption.getOrElse("jvm/src/test/resources/golden"))
    dir.mkdirs()
    all.foreach { g =>
      val w =
        LookupStoreFactory.create(g.options, new cache.CacheManager(1 << 20, 0)).createWriter(new File(dir, g.name), entries.size)
      entries.foreach { case (k, v) => w.put(k, v) }
      w.finish()
    }
  }
}
