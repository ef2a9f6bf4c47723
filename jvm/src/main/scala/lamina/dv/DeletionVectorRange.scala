package lamina.dv

/** Where the deletion vector of one data file stands in its index file, as the index manifest
 *  records it (Paimon's `DeletionVectorMeta`): the entry's offset, its recorded length (see
 *  [[DeletionVector.recordedLength]]) and its cardinality (absent in files of Paimon before 0.9).
 *  Invariant: `offset` is at least [[DeletionVectorsIndexFile.HeaderBytes]]. */
final case class DeletionVectorRange(dataFileName: String, offset: Int, length: Int, cardinality: Option[Long])
