package lamina.table.manifest

import org.apache.hadoop.fs.Path

import lamina.io.FileIO

/** Manifest files, manifest lists and index manifests as decoded, kept in this JVM (the driver,
 *  which plans every scan and commit) so that the scans of one snapshot, and of the next, which
 *  shares most of its manifests, read and decode each file once.
 *
 *  A manifest file never changes once written (its name is new), but a file is trusted only while
 *  it is what was read: each use compares the file's length and modification time (one status call,
 *  which costs less than reading and decoding the file, and on an object store about as much as the
 *  read it replaces), so a file damaged or replaced since is read again, and its damage reported.
 *
 *  Bounded: at most [[MaxRecords]] records in all, the least recently used going first; a file of
 *  more than [[MaxFileRecords]] records is not kept. */
object ManifestCache {
  val MaxRecords = 50000
  val MaxFileRecords = 20000

  private final case class Key(path: String, length: Long, modified: Long, kind: String)

  private val files = new java.util.LinkedHashMap[Key, Seq[Any]](64, 0.75f, true)
  private var records = 0L

  /** The records of the file at `path` as `decode` reads them (`kind` names the decoding), from the
   *  cache while the file's length and modification time are those it was read with. */
  def read[T](fileIO: FileIO, path: Path, kind: String)(decode: => Seq[T]): Seq[T] = {
    val status = fileIO.fs(path).getFileStatus(path)
    val key = Key(path.toString, status.getLen, status.getModificationTime, kind)
    val known = synchronized(files.get(key))
    if (known != null) known.asInstanceOf[Seq[T]]
    else {
      val read = decode
      if (read.size <= MaxFileRecords) synchronized {
        if (files.put(key, read) == null) records += read.size
        val oldest = files.entrySet().iterator()
        while (records > MaxRecords && oldest.hasNext) {
          records -= oldest.next().getValue.size
          oldest.remove()
        }
      }
      read
    }
  }

  /** Forgets every file (tests). */
  def clear(): Unit = synchronized { files.clear(); records = 0 }
}
