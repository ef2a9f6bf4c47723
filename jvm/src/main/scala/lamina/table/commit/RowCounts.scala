package lamina.table.commit

/** The rows a write inserted, updated, deleted and upserted, each where the write knows it: stored in
 *  the snapshot's `properties` map (Paimon's field, which its readers carry and ignore) under
 *  `lamina.rows.<count>`, and shown as `$snapshots.inserted_rows` and so on. A count a write does not
 *  know is absent (NULL), never a guess:
 *  - `upserted`: rows written by primary key without reading the table (an INSERT into a primary-key
 *    table, a MERGE planned as a write), each either a new row or the new version of its key's row;
 *  - a delete written by key without reading the table (a MERGE of deletes planned as a write) may
 *    delete no row, so it is not counted;
 *  - a copy-on-write UPDATE or MERGE of an append table rewrites the rows it leaves alone with the
 *    changed ones and cannot tell them apart: only its DELETE is counted.
 *  Encode ([[properties]]) and decode ([[of]]) side by side. */
final case class RowCounts(inserted: Option[Long] = None, updated: Option[Long] = None, deleted: Option[Long] = None,
    upserted: Option[Long] = None) {

  def properties: Map[String, String] =
    RowCounts.Keys.zip(values).collect { case (k, Some(v)) => k -> v.toString }.toMap

  def values: Seq[Option[Long]] = Seq(inserted, updated, deleted, upserted)

  def isEmpty: Boolean = values.forall(_.isEmpty)
}

object RowCounts {
  val Prefix = "lamina.rows."
  val Names: Seq[String] = Seq("inserted", "updated", "deleted", "upserted")
  val Keys: Seq[String] = Names.map(Prefix + _)

  val Unknown: RowCounts = RowCounts()

  /** The counts a snapshot's properties hold; a value that is not a count reads as unknown. */
  def of(properties: Map[String, String]): RowCounts = {
    def count(k: String) = properties.get(k).flatMap(_.toLongOption).filter(_ >= 0)
    val Seq(i, u, d, up) = Keys.map(count)
    RowCounts(i, u, d, up)
  }
}
