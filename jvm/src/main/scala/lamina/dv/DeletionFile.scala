package lamina.dv

/** What a reader task needs to read the deletion vector of one data file: the index file's full path,
 *  its size as the index manifest records it (checked on read), and the vector's range in it.
 *  Serializable: planned on the driver, read in executors. */
final case class DeletionFile(indexFilePath: String, indexFileSize: Long, range: DeletionVectorRange) extends Serializable
