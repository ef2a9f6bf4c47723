package lamina.table.predicate

/** A condition on a table's columns, as Lamina evaluates it ([[PredicateEval]]): exactly on a row, or
 *  conservatively on file statistics. Column names are top-level columns of the table; literals are
 *  external values as Spark hands them in filters (String, Int, java.time.LocalDate, ...).
 *  Invariant: `references` names every column the predicate reads. The Spark adapter converts
 *  Spark's filters into predicates at the edge. */
sealed trait Predicate extends Product with Serializable {
  def references: Seq[String]
}

sealed trait ColumnPredicate extends Predicate {
  def attribute: String
  override def references: Seq[String] = Seq(attribute)
}

final case class EqualTo(attribute: String, value: Any) extends ColumnPredicate

/** Equality where NULL equals NULL (SQL's `<=>`). */
final case class EqualNullSafe(attribute: String, value: Any) extends ColumnPredicate
final case class GreaterThan(attribute: String, value: Any) extends ColumnPredicate
final case class GreaterThanOrEqual(attribute: String, value: Any) extends ColumnPredicate
final case class LessThan(attribute: String, value: Any) extends ColumnPredicate
final case class LessThanOrEqual(attribute: String, value: Any) extends ColumnPredicate
final case class In(attribute: String, values: Array[Any]) extends ColumnPredicate
final case class IsNull(attribute: String) extends ColumnPredicate
final case class IsNotNull(attribute: String) extends ColumnPredicate
final case class StringStartsWith(attribute: String, value: String) extends ColumnPredicate
final case class StringEndsWith(attribute: String, value: String) extends ColumnPredicate
final case class StringContains(attribute: String, value: String) extends ColumnPredicate

final case class And(left: Predicate, right: Predicate) extends Predicate {
  override def references: Seq[String] = (left.references ++ right.references).distinct
}
final case class Or(left: Predicate, right: Predicate) extends Predicate {
  override def references: Seq[String] = (left.references ++ right.references).distinct
}
final case class Not(child: Predicate) extends Predicate {
  override def references: Seq[String] = child.references
}
final case class AlwaysTrue() extends Predicate {
  override def references: Seq[String] = Seq.empty
}
final case class AlwaysFalse() extends Predicate {
  override def references: Seq[String] = Seq.empty
}

/** A condition Lamina cannot evaluate (its value is always unknown: it prunes nothing), kept so
 *  that the conditions around it keep their meaning. `description` says what it was. */
final case class Unsupported(description: String, references: Seq[String]) extends Predicate
