package lamina.table

import java.nio.charset.StandardCharsets

import lamina.errors.BadInputException
import lamina.io.PathNames

/** The one check of a database or table name before it becomes a directory name under the
 *  warehouse (`<db>.db`, `<table>`). A valid name is one path segment that the warehouse's file
 *  system can hold: not empty, no separator (`/`, `\`), no `:` (a URI scheme to Hadoop's `Path`), no
 *  `$` (system tables and branches), no control character (NUL, newline, ...), no leading `.` (`.`,
 *  `..`, hidden files), and at most [[MaxNameBytes]] bytes in UTF-8 once its suffix is added. */
object Identifiers {

  /** The longest file name of common file systems (ext4, XFS, APFS, HDFS's default). */
  val MaxNameBytes: Int = PathNames.MaxSegmentBytes

  private val Forbidden = Seq('/', '\\', ':', '$')

  /** @param what "database" or "table"; @param suffix what the directory name adds to the name. */
  def check(name: String, what: String, suffix: String = ""): String = {
    if (name == null || name.trim.isEmpty) throw new BadInputException(s"The $what name must not be empty")
    val shown = printable(name)
    def refuse(why: String) = throw new BadInputException(s"Invalid $what name '$shown': $why")
    name.find(c => Forbidden.contains(c)).foreach(c => refuse(s"it must not contain '$c'"))
    if (name.exists(_.isControl)) refuse("it must not contain control characters (NUL, newline, tab, ...)")
    if (name.startsWith(".")) refuse("it must not start with '.'")
    val bytes = (name + suffix).getBytes(StandardCharsets.UTF_8).length
    if (bytes > MaxNameBytes)
      refuse(s"its directory name takes $bytes bytes in UTF-8, more than the $MaxNameBytes a file name may have")
    name
  }

  /** The name with control characters escaped and cut to 80 characters, for messages. */
  def printable(name: String): String = PathNames.printable(name)
}
