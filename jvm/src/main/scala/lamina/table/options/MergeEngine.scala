package lamina.table.options

/** The merge engine of a primary-key table (table option [[CoreOptions.MergeEngine]]): how the records
 *  of one key become its value. The one place the engines' names are spelled; the registry parses the
 *  option's text into this type. It lives beside the registry rather than in the merge tree, which
 *  reads the registry: the registry needs the type and may not import the layer above it. */
sealed abstract class MergeEngine(name: String) extends EnumValue(name) {

  /** The merge keeps one record of a key whole (the newest, or the first), never combining columns of
   *  several: a read needs only the columns it returns (others may stay unread), and an older record's
   *  value never matters once a newer one is known. */
  def keepsOneWholeRecord: Boolean = this == MergeEngine.Deduplicate || this == MergeEngine.FirstRow

  /** Later records of a key are ignored, so a key's first row is final: readers skip level 0 (it
   *  becomes visible by compaction), no older row is ever deleted (no deletion vectors), and neither
   *  `sequence.field` nor a merge that looks at older rows applies. */
  def keepsFirstRecord: Boolean = this == MergeEngine.FirstRow

  /** NULL in a newer record overwrites nothing. */
  def nullsOverwriteNothing: Boolean = this == MergeEngine.PartialUpdate
}

object MergeEngine {

  /** Keeps the record with the highest sequence number. */
  case object Deduplicate extends MergeEngine("deduplicate")

  /** Each non-null value of a newer record overwrites the column; NULL overwrites nothing. */
  case object PartialUpdate extends MergeEngine("partial-update")

  /** Each value column is folded with its aggregate function. */
  case object Aggregation extends MergeEngine("aggregation")

  /** Keeps the first record written for a key; later ones are ignored. */
  case object FirstRow extends MergeEngine("first-row")

  val Default: MergeEngine = Deduplicate
  val All: Seq[MergeEngine] = Seq(Deduplicate, PartialUpdate, Aggregation, FirstRow)

  /** The merge engine of a table with these options; a bad value fails naming the table. */
  def of(options: Map[String, String], table: String): MergeEngine = CoreOptions.MergeEngine.ofTable(options, table)
}
