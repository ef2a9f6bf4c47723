package lamina.mergetree

import lamina.errors.BadInputException

/** The merge engine of a primary-key table (table option `merge-engine`): how the records of one
 *  key become its value. The one place the option's key and its values are spelled. */
sealed abstract class MergeEngine(val name: String) extends Product with Serializable {
  override def toString: String = name
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

  val Key = "merge-engine"
  val Default: MergeEngine = Deduplicate
  val All: Seq[MergeEngine] = Seq(Deduplicate, PartialUpdate, Aggregation, FirstRow)

  /** The engine named `name` (any case). */
  def parse(name: String): Option[MergeEngine] = All.find(_.name.equalsIgnoreCase(name.trim))

  /** The merge engine of a table with these options; an unknown name fails naming the table. */
  def of(options: Map[String, String], table: String): MergeEngine = {
    val name = try MergeTreeOptions.MergeEngine.getOrDefault(options)
    catch { case e: BadInputException => throw new BadInputException(s"Table $table: ${e.getMessage}", e) }
    parse(name).getOrElse(throw new BadInputException(
      s"Table $table: unknown $Key '$name'; use one of ${All.map(_.name).mkString(", ")}"))
  }
}
