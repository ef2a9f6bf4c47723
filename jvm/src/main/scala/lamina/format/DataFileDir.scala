package lamina.format

import scala.util.Random

import org.apache.hadoop.fs.Path

import lamina.io.PathNames

/** Where one writer of a (partition, bucket) puts its new data files: the bucket's directory in the
 *  table, or, with external data paths, the same relative directory under each external root, taken
 *  in turn from a random start (Paimon's round-robin: each writer starts at a random root, then moves
 *  one root on before every file). Invariant: a file placed under an external root is
 *  [[DataFileDir.Placed.external]], and its metadata records its full path. Not thread-safe: one per writer. */
final class DataFileDir(val bucketDir: Path, externalDirs: Seq[Path]) {
  private var position = if (externalDirs.isEmpty) 0 else Random.nextInt(externalDirs.size)

  /** The path of the next file called `fileName`. */
  def place(fileName: String): DataFileDir.Placed =
    if (externalDirs.isEmpty) DataFileDir.Placed(PathNames.child(bucketDir, fileName, "data file"), external = false)
    else {
      position = (position + 1) % externalDirs.size
      DataFileDir.Placed(PathNames.child(externalDirs(position), fileName, "data file"), external = true)
    }
}

object DataFileDir {

  /** A new file's path; `external` when it lies outside the table's directory. */
  final case class Placed(path: Path, external: Boolean) {

    /** What the file's metadata records as its external path. */
    def externalPath: Option[String] = if (external) Some(path.toString) else None

    /** A file written beside this one (its file index). */
    def sibling(name: String, what: String): Path = PathNames.child(path.getParent, name, what)
  }

  /** The table's bucket directory only. */
  def local(bucketDir: Path): DataFileDir = new DataFileDir(bucketDir, Nil)
}
