package lamina.table.bucket

import lamina.table.options.MergeEngine

/** What a cross-partition upsert does with a record whose key the table already holds in another
 *  partition, by merge engine, as Paimon's `ExistingProcessor`s do. */
sealed trait ExistingKeyPolicy

object ExistingKeyPolicy {

  /** deduplicate: the old row is deleted in its partition and bucket (a -D record there), and the new
   *  record goes to its own partition, the key's index entry moving with it. */
  case object DeleteOld extends ExistingKeyPolicy

  /** partial-update and aggregation: the record is merged into the key's row where it is, written to
   *  the old partition and bucket with the old partition's values; the key does not move. */
  case object UseOld extends ExistingKeyPolicy

  /** first-row: the first row of a key stays; the record is dropped. */
  case object SkipNew extends ExistingKeyPolicy

  def of(engine: MergeEngine): ExistingKeyPolicy = engine match {
    case MergeEngine.Deduplicate => DeleteOld
    case MergeEngine.PartialUpdate | MergeEngine.Aggregation => UseOld
    case MergeEngine.FirstRow => SkipNew
  }
}
