package lamina.io

import java.nio.charset.StandardCharsets

import org.apache.hadoop.fs.Path

import lamina.errors.BadInputException

/** The one place a string becomes a Hadoop [[Path]] (the layer script refuses `new Path` anywhere
 *  else). A name joined under a directory ([[child]]) must be exactly one path segment, so that no
 *  name, whether a user gave it (branch, tag, consumer id) or metadata holds it (a data, index or
 *  manifest file name), can reach outside its directory: not empty, not `.` or `..`, no separator
 *  (`/`, `\`), no `:` (a URI scheme to Hadoop's `Path`, or a drive), no control character, at most
 *  [[MaxSegmentBytes]] bytes in UTF-8. A whole path ([[of]]) comes only from configuration (a
 *  warehouse root, a checkpoint location) or from a file system listing. */
object PathNames {

  /** The longest file name of common file systems (ext4, XFS, APFS, HDFS's default). */
  val MaxSegmentBytes = 255

  /** `parent/name`, `name` checked to be one segment; `what` names it in the error ("data file", ...). */
  def child(parent: Path, name: String, what: => String = "file"): Path =
    new Path(parent, checkSegment(name, what, parent))

  /** `parent/s1/s2/...`, each segment checked as by [[child]]. */
  def descendant(parent: Path, segments: Seq[String], what: => String = "directory"): Path =
    segments.foldLeft(parent)((p, s) => child(p, s, what))

  /** A whole path from configuration or a listing (not a name to place under a directory). */
  def of(path: String): Path = new Path(path)

  /** `name` when it is one path segment (see the object's doc), else a [[BadInputException]] naming
   *  `what`, the name and the directory it was to go under. */
  def checkSegment(name: String, what: => String, parent: Path): String = {
    whyNotSegment(name).foreach(why =>
      throw new BadInputException(s"Invalid $what name '${printable(name)}' under $parent: $why"))
    name
  }

  /** Why `name` is not one path segment, None when it is. */
  def whyNotSegment(name: String): Option[String] = {
    if (name == null || name.isEmpty) return Some("it is empty")
    if (name == "." || name == "..") return Some("it names a directory itself, not a file in it")
    var i = 0
    while (i < name.length) {
      val c = name.charAt(i)
      if (c == '/' || c == '\\' || c == ':') return Some(s"it must not contain '$c'")
      if (Character.isISOControl(c)) return Some("it must not contain control characters (NUL, newline, tab, ...)")
      i += 1
    }
    val bytes = name.getBytes(StandardCharsets.UTF_8).length
    if (bytes > MaxSegmentBytes) Some(s"it takes $bytes bytes in UTF-8, more than the $MaxSegmentBytes a file name may have")
    else None
  }

  /** The name with control characters escaped and cut to 80 characters, for messages. */
  def printable(name: String): String = {
    if (name == null) return "null"
    val escaped = name.flatMap {
      case '\n' => "\\n"
      case '\r' => "\\r"
      case '\t' => "\\t"
      case c if c.isControl => f"\\u${c.toInt}%04x"
      case c => c.toString
    }
    if (escaped.length > 80) escaped.take(77) + "..." else escaped
  }
}
