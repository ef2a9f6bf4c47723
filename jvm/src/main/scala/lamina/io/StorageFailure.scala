package lamina.io

import java.io.IOException
import java.nio.charset.StandardCharsets
import java.nio.file.{AccessDeniedException, FileSystemException, Files, Paths}

import scala.util.Try

import org.apache.hadoop.fs.{FileSystem, Path}

import lamina.errors.StorageException

/** Builds the [[StorageException]] for a file-system call that failed or answered `false`: Hadoop's
 *  local file system reports a refused `mkdirs` or `delete` as `false` without a reason, so the
 *  reason is found by looking at the path (a name too long, an ancestor that is a file, a read-only
 *  file system, no write permission), else taken from the cause. */
object StorageFailure {
  def apply(fs: FileSystem, operation: String, path: Path, cause: Throwable = null): StorageException =
    new StorageException(operation, path.toString, reason(fs, path, cause), cause)

  private def reason(fs: FileSystem, path: Path, cause: Throwable): String = {
    val tooLong = segments(path).find(_.getBytes(StandardCharsets.UTF_8).length > 255)
    if (tooLong.isDefined) return s"a name in the path is longer than the file system allows (255 bytes)"
    val ancestor = Iterator.iterate(path.getParent)(_.getParent).takeWhile(_ != null)
      .find(p => Try(fs.exists(p)).getOrElse(false))
    val local = fs.getUri.getScheme == "file"
    ancestor.flatMap { a =>
      val status = Try(fs.getFileStatus(a)).toOption
      if (status.exists(!_.isDirectory)) Some(s"$a is a file, not a directory")
      else if (local) probe(Paths.get(a.toUri.getPath)).map(why => s"$why ($a)")
      else None
    }.orElse(Option(cause).map(describe)).getOrElse("the file system refused without giving a reason")
  }

  /** The operating system's reason for refusing a new file in `dir` (read-only file system,
   *  permission denied, no space), found by creating and deleting one; None when it is accepted. */
  private def probe(dir: java.nio.file.Path): Option[String] =
    try {
      Files.delete(Files.createTempFile(dir, ".lamina-probe", ""))
      None
    } catch {
      case _: AccessDeniedException => Some("permission denied")
      case e: FileSystemException => Some(Option(e.getReason).getOrElse(e.getClass.getSimpleName).toLowerCase)
      case e: IOException => Some(describe(e))
    }

  private def describe(e: Throwable): String = e match {
    case io: IOException if io.getMessage != null => io.getMessage
    case other => other.toString
  }

  private def segments(p: Path): Seq[String] =
    Iterator.iterate(p)(_.getParent).takeWhile(q => q != null && !q.isRoot).map(_.getName).toSeq
}
