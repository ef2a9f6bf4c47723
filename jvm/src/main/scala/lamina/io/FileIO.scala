package lamina.io

import java.io.{ByteArrayOutputStream, FileNotFoundException, IOException}
import java.nio.charset.StandardCharsets
import java.nio.file.{FileAlreadyExistsException, Files, Paths}
import java.util.UUID

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, FileSystem, LocalFileSystem, Path, RawLocalFileSystem}

import lamina.errors.StorageException

/** File access for metadata (snapshots, schemas, manifests, hints) over Hadoop's FileSystem, so that
 *  local disks, HDFS and S3A work alike. Serializable: executors rebuild the FileSystem from the
 *  configuration they carry. */
final class FileIO(conf: SerializableConfiguration) extends Serializable {

  def hadoopConf: Configuration = conf.value

  def fs(path: Path): FileSystem = path.getFileSystem(conf.value)

  def exists(path: Path): Boolean = fs(path).exists(path)

  /** Whether `path` is a file: on an object store one HEAD, where [[exists]] also lists to look for a
   *  directory of that name when there is no object. */
  @annotation.nowarn("cat=deprecation")
  def fileExists(path: Path): Boolean = fs(path).isFile(path)

  def isDir(path: Path): Boolean = {
    val f = fs(path)
    f.exists(path) && f.getFileStatus(path).isDirectory
  }

  /** Creates the directory and its parents; a refusal is a [[StorageException]] naming
   *  the path and why, never a silent `false`. */
  def mkdirs(path: Path): Unit = {
    val f = fs(path)
    val made =
      try f.mkdirs(path)
      catch { case e: IOException => throw StorageFailure(f, "create directory", path, e) }
    if (!made || !isDir(path)) throw StorageFailure(f, "create directory", path)
  }

  /** Makes sure files can be created in `dir`: [[mkdirs]], except on an object store, where a file's
   *  directories need no object of their own (S3A would spend a HEAD, LISTs and a PUT on one). */
  def mkdirsForFiles(dir: Path): Unit = if (!AtomicCreate.isObjectStore(fs(dir))) mkdirs(dir)

  def list(dir: Path): Seq[FileStatus] =
    try fs(dir).listStatus(dir).toSeq
    catch { case _: FileNotFoundException => Seq.empty }

  def delete(path: Path, recursive: Boolean): Boolean = fs(path).delete(path, recursive)

  /** Deletes a directory with everything in it; a refusal (or anything left behind) is a
   *  [[StorageException]] naming the path and why. */
  def deleteDirectory(path: Path): Unit = {
    val f = fs(path)
    val deleted =
      try f.delete(path, true)
      catch { case e: IOException => throw StorageFailure(f, "delete", path, e) }
    if (!deleted || f.exists(path)) throw StorageFailure(f, "delete", path)
  }

  /** The directory's entries; a `dir` that is a file is a [[StorageException]] (Hadoop
   *  would list the file itself), a missing one has none. */
  def listDirectory(dir: Path): Seq[FileStatus] = {
    val f = fs(dir)
    val status =
      try Some(f.getFileStatus(dir))
      catch { case _: FileNotFoundException => None }
    status match {
      case Some(s) if !s.isDirectory => throw new StorageException("list", dir.toString, "it is a file, not a directory")
      case Some(_) => list(dir)
      case None => Seq.empty
    }
  }

  /** Whether `path` is a symbolic link (never followed by clean-ups); false on file systems without
   *  links (HDFS with links disabled, object stores) and for a path that is gone. */
  def isSymlink(path: Path): Boolean = {
    val f = fs(path)
    f match {
      // Hadoop's local file system reports links only while its process-wide symlink switch is on
      case local: LocalFileSystem => Files.isSymbolicLink(local.pathToFile(path).toPath)
      case raw: RawLocalFileSystem => Files.isSymbolicLink(raw.pathToFile(path).toPath)
      case _ =>
        f.supportsSymlinks() && (try f.getFileLinkStatus(path).isSymlink
        catch { case _: IOException | _: UnsupportedOperationException => false })
    }
  }

  def deleteQuietly(path: Path): Unit =
    try fs(path).delete(path, false)
    catch { case _: IOException => () }

  def fileSize(path: Path): Long = fs(path).getFileStatus(path).getLen

  def readBytes(path: Path): Array[Byte] = {
    val in = fs(path).open(path)
    try {
      val out = new ByteArrayOutputStream()
      in.transferTo(out)
      out.toByteArray
    } finally in.close()
  }

  def readUtf8(path: Path): String = new String(readBytes(path), StandardCharsets.UTF_8)

  /** Writes the whole file, replacing what was there (used for hints and new unique names only); a
   *  failure (on an object store, of the PUT when the stream closes) is a [[StorageException]] naming
   *  the file. */
  def writeBytes(path: Path, bytes: Array[Byte]): Unit = {
    val f = fs(path)
    try put(f, path, bytes)
    catch { case e: IOException => throw StorageFailure(f, "write", path, e) }
  }

  private def put(f: FileSystem, path: Path, bytes: Array[Byte]): Unit = {
    val out = f.create(path, true)
    try out.write(bytes)
    finally out.close()
  }

  /** A hidden sibling of `path` to write before renaming into place; its name stays within a file
   *  name's length whatever `path`'s is. */
  private def tempSibling(path: Path): Path =
    PathNames.child(path.getParent, s".${path.getName.take(160)}.${UUID.randomUUID()}.tmp", "temporary file")

  def overwriteUtf8(path: Path, text: String): Unit = {
    // an object store shows a PUT whole or not at all, and its rename is a copy then a delete
    if (AtomicCreate.isObjectStore(fs(path))) return put(fs(path), path, text.getBytes(StandardCharsets.UTF_8))
    // write then rename so that readers never see a half-written hint
    val tmp = tempSibling(path)
    writeBytes(tmp, text.getBytes(StandardCharsets.UTF_8))
    val f = fs(path)
    f.delete(path, false)
    if (!f.rename(tmp, path)) f.delete(tmp, false)
  }

  /** How this file system creates a file only where none exists ([[tryAtomicCreate]]). */
  def atomicCreate(path: Path): AtomicCreate = AtomicCreate.of(fs(path), conf.value)

  /** Creates `path` with `text` only if it does not exist yet; true when this call created it. Atomic
   *  against other processes by [[atomicCreate]]: a hard link on local disks, a conditional PUT on S3,
   *  a non-overwriting rename elsewhere (HDFS); on an object store without conditional writes a check
   *  then a PUT, safe only under a commit lock (callers check [[AtomicCreate.safeWithoutLock]]). */
  def tryAtomicCreate(path: Path, text: String): Boolean = {
    val f = fs(path)
    val bytes = text.getBytes(StandardCharsets.UTF_8)
    AtomicCreate.of(f, conf.value) match {
      case AtomicCreate.ConditionalPut =>
        try S3ConditionalCreate.create(f, path, bytes)
        catch { case e: RuntimeException => throw StorageFailure(f, "write", path, e) }
      case AtomicCreate.CheckThenPut =>
        // a failed PUT here may still have landed: the caller's IOException, not a refusal
        if (f.exists(path)) false else { put(f, path, bytes); true }
      case kind @ (AtomicCreate.HardLink | AtomicCreate.Rename) =>
        if (f.exists(path)) return false
        val tmp = tempSibling(path)
        // nothing exists yet when the temporary file cannot be written: a refusal, not an unknown state
        try put(f, tmp, bytes)
        catch { case e: IOException => f.delete(tmp, false); throw StorageFailure(f, "write", path, e) }
        try {
          if (kind == AtomicCreate.HardLink) {
            val target = Paths.get(f.pathToFile(path).toURI)
            val source = Paths.get(f.pathToFile(tmp).toURI)
            try { Files.createLink(target, source); true }
            catch { case _: FileAlreadyExistsException => false }
          } else {
            f.rename(tmp, path)
          }
        } finally f.delete(tmp, false)
    }
  }

  private implicit class LocalPaths(f: FileSystem) {
    def pathToFile(p: Path): java.io.File = {
      val local = f match {
        case l: org.apache.hadoop.fs.LocalFileSystem => l.pathToFile(p)
        case r: org.apache.hadoop.fs.RawLocalFileSystem => r.pathToFile(p)
        case _ => new java.io.File(p.toUri.getPath)
      }
      local
    }
  }
}

object FileIO {
  def apply(conf: Configuration): FileIO = new FileIO(new SerializableConfiguration(conf))
}

/** A Hadoop configuration that survives Java serialization (to executors). */
final class SerializableConfiguration(@transient var value: Configuration) extends Serializable {
  private def writeObject(out: java.io.ObjectOutputStream): Unit = {
    out.defaultWriteObject()
    value.write(out)
  }
  private def readObject(in: java.io.ObjectInputStream): Unit = {
    in.defaultReadObject()
    value = new Configuration(false)
    value.readFields(in)
  }
}
