package lamina.format

import org.apache.hadoop.fs.Path

import lamina.io.PathNames

/** What reading a data file needs to know of it: its name in its bucket's directory, its length, the
 *  records its metadata counts (checked when the file is read to its end), and its full path when it
 *  lies under an external root. */
final case class DataFileRef(name: String, size: Long, rowCount: Long, externalPath: Option[String] = None) {

  /** Where the file lies, `bucketDir` being its bucket's directory in the table. */
  def pathIn(bucketDir: String): Path = DataFileRef.path(PathNames.of(bucketDir), name, externalPath)
}

object DataFileRef {

  /** A data file's path: its external path when its metadata records one, else `name` in `bucketDir`. */
  def path(bucketDir: Path, name: String, externalPath: Option[String]): Path =
    externalPath.map(PathNames.of).getOrElse(PathNames.child(bucketDir, name, "data file"))
}
