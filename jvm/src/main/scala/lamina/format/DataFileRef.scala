package lamina.format

/** What reading a data file needs to know of it: its name in its directory, its length, and the
 *  records its metadata counts (checked when the file is read to its end). */
final case class DataFileRef(name: String, size: Long, rowCount: Long)
