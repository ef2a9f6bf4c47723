package lamina.io

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileSystem

/** How a file system creates a file only where none exists: the step every commit rests on (a snapshot,
 *  tag, schema or branch file whose name two writers can both pick). */
sealed abstract class AtomicCreate(val description: String) {

  /** Whether two processes racing for one name are told apart without a lock held around the create. */
  def safeWithoutLock: Boolean = true
}

object AtomicCreate {

  /** Local disks: a hard link from a written temporary file, which fails where the name exists. */
  case object HardLink extends AtomicCreate("a hard link")

  /** HDFS and other file systems whose rename does not overwrite and is atomic. */
  case object Rename extends AtomicCreate("a rename that does not overwrite")

  /** S3 (S3A): a PUT with `If-None-Match: *`, which the store refuses where the object exists. */
  case object ConditionalPut extends AtomicCreate("a conditional PUT (If-None-Match)")

  /** An object store without conditional writes (or with them switched off): a check, then a PUT.
   *  Only a lock held around each commit makes that safe. */
  case object CheckThenPut extends AtomicCreate("a check then a PUT (no conditional writes)") {
    override def safeWithoutLock: Boolean = false
  }

  /** File system schemes of object stores: no atomic rename, and a rename is a copy then a delete. */
  val ObjectStoreSchemes: Set[String] = Set("s3", "s3a", "s3n", "oss", "obs", "cosn", "gs")

  /** The S3A setting (Hadoop's name for it, per bucket too: `fs.s3a.bucket.<bucket>.create.conditional.enabled`)
   *  that switches conditional writes off for a store that does not honour them; catalog option
   *  `s3.create.conditional.enabled`. */
  val S3AConditionalKey = "fs.s3a.create.conditional.enabled"

  private val S3AClass = "org.apache.hadoop.fs.s3a.S3AFileSystem"

  def isObjectStore(fs: FileSystem): Boolean = Option(fs.getUri.getScheme).exists(s => ObjectStoreSchemes(s.toLowerCase))

  /** Whether `fs` is Hadoop's S3A connector (found by name: its classes are on the class path only
   *  where S3 is used). */
  def isS3A(fs: FileSystem): Boolean =
    Iterator.iterate[Class[_]](fs.getClass)(_.getSuperclass).takeWhile(_ != null).exists(_.getName == S3AClass)

  /** The way `fs` creates files, with the settings of `conf` (not the file system's own, which Hadoop
   *  caches per bucket from the first configuration that opened it). */
  def of(fs: FileSystem, conf: Configuration): AtomicCreate =
    if (fs.getUri.getScheme == "file") HardLink
    else if (isS3A(fs)) { if (conditionalWrites(conf, fs.getUri.getHost)) ConditionalPut else CheckThenPut }
    else if (isObjectStore(fs)) CheckThenPut
    else Rename

  /** S3A's per-bucket setting first, then the general one; on by default. */
  private def conditionalWrites(conf: Configuration, bucket: String): Boolean = {
    val perBucket = Option(bucket).map(b => conf.get(s"fs.s3a.bucket.$b.create.conditional.enabled")).orNull
    if (perBucket != null) perBucket.trim.toBoolean else conf.getBoolean(S3AConditionalKey, true)
  }
}
