package lamina.table.schema

import lamina.types.DataType

/** One change of ALTER TABLE, applied by [[SchemaEvolution.apply]]. Column names are top-level. */
sealed trait SchemaChange

object SchemaChange {
  final case class SetOption(key: String, value: String) extends SchemaChange
  final case class RemoveOption(key: String) extends SchemaChange
  final case class UpdateComment(comment: Option[String]) extends SchemaChange

  /** `after`: None = last, Some(None) = first, Some(Some(c)) = after column c. */
  final case class AddColumn(name: String, dataType: DataType, comment: Option[String],
      after: Option[Option[String]] = None)
    extends SchemaChange

  /** ALTER COLUMN ... FIRST (`after` None) or AFTER `after`. */
  final case class MoveColumn(name: String, after: Option[String]) extends SchemaChange
  final case class RenameColumn(from: String, to: String) extends SchemaChange
  final case class DropColumn(name: String) extends SchemaChange
  final case class UpdateColumnType(name: String, newType: DataType) extends SchemaChange
  final case class UpdateColumnNullability(name: String, nullable: Boolean) extends SchemaChange
  final case class UpdateColumnComment(name: String, comment: Option[String]) extends SchemaChange
}
