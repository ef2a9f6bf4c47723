package lamina.spark

import org.apache.spark.sql.connector.catalog.TableChange
import org.apache.spark.sql.connector.catalog.TableChange._

import lamina.errors.BadInputException
import lamina.table.schema.SchemaChange
import lamina.types.SparkTypes

/** Maps Spark's ALTER TABLE changes to Lamina's schema changes (top-level columns). */
object AlterTableSpec {
  def toChanges(table: String, changes: Seq[TableChange]): Seq[SchemaChange] = changes.map {
    case c: SetProperty if c.property() == "comment" => SchemaChange.UpdateComment(Some(c.value()))
    case c: SetProperty => SchemaChange.SetOption(c.property(), c.value())
    case c: RemoveProperty if c.property() == "comment" => SchemaChange.UpdateComment(None)
    case c: RemoveProperty => SchemaChange.RemoveOption(c.property())
    case c: AddColumn =>
      val name = topLevel(table, c.fieldNames())
      val after = Option(c.position()).map {
        case _: First => None
        case a: After => Some(a.column())
        case _ => None
      }
      var id = 0
      SchemaChange.AddColumn(name, SparkTypes.fromSpark(c.dataType(), c.isNullable, () => { id += 1; id }),
        Option(c.comment()), after)
    case c: RenameColumn => SchemaChange.RenameColumn(topLevel(table, c.fieldNames()), c.newName())
    case c: DeleteColumn => SchemaChange.DropColumn(topLevel(table, c.fieldNames()))
    case c: UpdateColumnType =>
      SchemaChange.UpdateColumnType(topLevel(table, c.fieldNames()), SparkTypes.fromSpark(c.newDataType(), true, () => 0))
    case c: UpdateColumnNullability => SchemaChange.UpdateColumnNullability(topLevel(table, c.fieldNames()), c.nullable())
    case c: UpdateColumnPosition =>
      val after = c.position() match {
        case _: First => None
        case a: After => Some(a.column())
        case other => throw new BadInputException(s"ALTER TABLE $table: column position $other is not supported")
      }
      SchemaChange.MoveColumn(topLevel(table, c.fieldNames()), after)
    case c: UpdateColumnComment => SchemaChange.UpdateColumnComment(topLevel(table, c.fieldNames()), Option(c.newComment()))
    case other => throw new BadInputException(s"ALTER TABLE $table: change ${other.getClass.getSimpleName} is not supported")
  }

  private def topLevel(table: String, names: Array[String]): String = {
    if (names.length != 1)
      throw new BadInputException(
        s"ALTER TABLE $table: nested column ${names.mkString(".")} cannot be changed; only top-level columns")
    names.head
  }
}
