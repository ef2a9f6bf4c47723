package lamina.table.scan

import scala.collection.immutable.ArraySeq

import lamina.table.manifest.ManifestEntry

/** Where the sequence numbers of a primary-key table's next write start: per (serialized partition,
 *  bucket), a number at least the highest sequence number committed there, so later writes win.
 *
 *  An upper bound is all a writer needs (sequence numbers only have to grow per bucket), and the
 *  highest number ever added to a bucket is one: a file that is deleted or rewritten never lowers it.
 *  So the bounds are an [[AddedFilesFold]]. */
object SequenceBases extends AddedFilesFold[Map[(ArraySeq[Byte], Int), Long]] {
  type Key = (ArraySeq[Byte], Int)

  override protected def empty: Map[Key, Long] = Map.empty

  override protected def add(bases: Map[Key, Long], changes: IterableOnce[ManifestEntry]): Map[Key, Long] =
    changes.iterator.filter(_.isAdd).foldLeft(bases) { (m, e) =>
      val k = (ArraySeq.unsafeWrapArray(e.partition), e.bucket)
      val seq = e.file.maxSequenceNumber
      if (m.get(k).exists(_ >= seq)) m else m.updated(k, seq)
    }
}
