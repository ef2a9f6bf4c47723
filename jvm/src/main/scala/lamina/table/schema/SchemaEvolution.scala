package lamina.table.schema

import lamina.errors.BadInputException
import lamina.table.options.{CoreOptions, OptionDef}
import lamina.types._

/** Pure rules of schema evolution: the next schema from the current one and a list of changes.
 *  Field ids of existing columns never change; new columns get fresh ids above `highestFieldId`. */
object SchemaEvolution {
  import SchemaChange._

  /** Options whose value the schema holds as its key lists. */
  private val SchemaKeyOptions = Set(CoreOptions.PrimaryKey.key, "partition")

  def apply(current: TableSchema, changes: Seq[SchemaChange], table: String, now: Long): TableSchema = {
    def schemaKeys(option: String): Seq[String] =
      if (option == CoreOptions.PrimaryKey.key) current.primaryKeys else current.partitionKeys
    var fields = current.fields
    var options = current.options
    var comment = current.comment
    var highest = current.highestFieldId

    def idx(name: String): Int = {
      val i = fields.indexWhere(_.name == name)
      if (i < 0) throw new BadInputException(s"Column '$name' does not exist in table $table")
      i
    }
    def guardKey(name: String, action: String): Unit = {
      if (current.partitionKeys.contains(name))
        throw new BadInputException(s"Cannot $action partition column '$name' of table $table")
      if (current.primaryKeys.contains(name))
        throw new BadInputException(s"Cannot $action primary-key column '$name' of table $table")
      // rows already sit in the bucket this column's value hashed to
      if (CoreOptions.BucketKey.get(current.options).exists(_.contains(name)))
        throw new BadInputException(s"Cannot $action bucket-key column '$name' of table $table")
    }

    changes.foreach {
      // the primary and partition keys are part of the schema, not options: the same keys again
      // change nothing, other keys are refused (stored as an option, they would contradict the schema)
      case SetOption(k, v) if SchemaKeyOptions.contains(k) =>
        val keys = schemaKeys(k)
        if (v.split(',').map(_.trim).filter(_.nonEmpty).toSeq != keys)
          throw new BadInputException(s"Cannot change option '$k' of existing table $table" +
            (if (keys.isEmpty) s": it has none" else s": it is ${keys.mkString(",")}"))
      case RemoveOption(k) if SchemaKeyOptions.contains(k) && schemaKeys(k).nonEmpty =>
        throw new BadInputException(s"Cannot remove option '$k' of existing table $table: it is ${schemaKeys(k).mkString(",")}")
      case SetOption(k, v) =>
        CoreOptions.validate(Map(k -> v), table)
        // a fixed count may change to another: each partition keeps its own until CALL sys.rescale
        val fixedToFixed = k == "bucket" && options.get(k).exists(o => fixedCount(o) && fixedCount(v))
        if (Set("bucket", "primary-key", "partition").contains(k) && options.get(k).exists(_ != v) && !fixedToFixed)
          throw new BadInputException(s"Cannot change option '$k' of existing table $table" +
            (if (k == "bucket") ": only a fixed bucket count (above 0) may change to another" else ""))
        if ((k == "bucket" && !options.contains(k) && v != "-1") || (k == "bucket-key" && !options.get(k).contains(v)))
          throw new BadInputException(s"Cannot change option '$k' of existing table $table")
        // options that decide which version of a row wins: changing them would change committed data
        if (current.primaryKeys.nonEmpty && changesDefining(k, options.get(k), Some(v)))
          throw new BadInputException(
            s"Cannot change option '$k' of existing table $table: it decides which rows the table holds")
        checkOneWay(k, options.get(k), Some(v), table)
        options += k -> v
      case RemoveOption(k) =>
        if (Set("bucket", "primary-key", "bucket-key").contains(k) && options.contains(k))
          throw new BadInputException(s"Cannot remove option '$k' of existing table $table")
        if (current.primaryKeys.nonEmpty && options.contains(k) && changesDefining(k, options.get(k), None))
          throw new BadInputException(
            s"Cannot remove option '$k' of existing table $table: it decides which rows the table holds")
        checkOneWay(k, options.get(k), None, table)
        options -= k
      case UpdateComment(c) => comment = c
      case AddColumn(name, t, c, after) =>
        if (fields.exists(_.name == name))
          throw new BadInputException(s"Column '$name' already exists in table $table")
        if (!t.nullable)
          throw new BadInputException(s"Cannot add NOT NULL column '$name' to table $table: existing rows have no value for it")
        val (renumbered, next) = assignIds(t, highest + 1)
        val f = DataField(next, name, renumbered, c)
        highest = math.max(highest, TableSchema.highestId(Seq(f)))
        fields = after match {
          case None => fields :+ f
          case Some(None) => f +: fields
          case Some(Some(col)) => val i = idx(col); (fields.take(i + 1) :+ f) ++ fields.drop(i + 1)
        }
      case MoveColumn(name, after) =>
        val moved = fields(idx(name))
        if (after.contains(name)) throw new BadInputException(s"Cannot move column '$name' of table $table after itself")
        val rest = fields.filterNot(_.name == name)
        fields = after match {
          case None => moved +: rest
          case Some(col) =>
            val i = rest.indexWhere(_.name == col)
            if (i < 0) throw new BadInputException(s"Column '$col' does not exist in table $table")
            (rest.take(i + 1) :+ moved) ++ rest.drop(i + 1)
        }
      case RenameColumn(from, to) =>
        val i = idx(from)
        guardKey(from, "rename")
        if (fields.exists(_.name == to))
          throw new BadInputException(s"Column '$to' already exists in table $table")
        fields = fields.updated(i, fields(i).copy(name = to))
      case DropColumn(name) =>
        val i = idx(name)
        guardKey(name, "drop")
        if (fields.size == 1) throw new BadInputException(s"Cannot drop the only column '$name' of table $table")
        fields = fields.patch(i, Nil, 1)
      case UpdateColumnType(name, t) =>
        val i = idx(name)
        val old = fields(i)
        guardKey(name, "change the type of")
        val target = t.withNullable(old.dataType.nullable)
        if (!canWiden(old.dataType, target))
          throw new BadInputException(
            s"Cannot change column '$name' of table $table from ${old.dataType.asSQLString} to ${target.asSQLString}: " +
              "only widening (int to bigint, float to double, larger decimal precision, longer varchar) is allowed")
        fields = fields.updated(i, old.copy(dataType = target))
      case UpdateColumnNullability(name, nullable) =>
        val i = idx(name)
        val old = fields(i)
        if (!nullable && old.dataType.nullable)
          throw new BadInputException(s"Cannot make column '$name' of table $table NOT NULL: existing rows may hold nulls")
        if (nullable && current.primaryKeys.contains(name))
          throw new BadInputException(s"Primary-key column '$name' of table $table must stay NOT NULL")
        fields = fields.updated(i, old.copy(dataType = old.dataType.withNullable(nullable)))
      case UpdateColumnComment(name, c) =>
        val i = idx(name)
        fields = fields.updated(i, fields(i).copy(description = c))
    }
    current.copy(id = current.id + 1, fields = fields, highestFieldId = highest, options = options,
      comment = comment, timeMillis = now)
  }

  /** Options of primary-key tables that decide the merged rows; fixed once the table exists. */
  val DefiningOptions: Seq[OptionDef[_]] =
    Seq(CoreOptions.MergeEngine, CoreOptions.SequenceField, CoreOptions.SequenceFieldSortOrder)

  /** Options that may be switched on but never back off (Paimon's rule): the records they dropped on
   *  write are gone, and a table that took +U records alone must keep taking them so. */
  private val OneWayOptions: Seq[OptionDef[Boolean]] = Seq(CoreOptions.IgnoreUpdateBefore)

  private def fixedCount(text: String): Boolean = text.trim.toIntOption.exists(_ > 0)

  private def checkOneWay(key: String, from: Option[String], to: Option[String], table: String): Unit =
    OneWayOptions.find(_.key == key).foreach { d =>
      def value(text: Option[String]) = d.getOrDefault(text.filter(_.trim.nonEmpty).map(d.key -> _).toMap)
      if (value(from) && !value(to))
        throw new BadInputException(s"Cannot change option '$key' of existing table $table from true to false")
    }

  /** Whether moving option `key` from the text `from` to `to` (None or blank: unset, so its default)
   *  changes the value of a defining option: text that parses to the same value (`DEDUPLICATE` for
   *  the default `deduplicate`, `a, b` for `a,b`) changes nothing. Both texts have been validated:
   *  stored ones when the schema was read, new ones before. */
  private def changesDefining(key: String, from: Option[String], to: Option[String]): Boolean =
    DefiningOptions.find(_.key == key).exists { d =>
      def value(text: Option[String]) = d.get(text.filter(_.trim.nonEmpty).map(d.key -> _).toMap)
      value(from) != value(to)
    }

  /** Gives the nested fields of `t` fresh ids starting at `start`; returns the type and the id for
   *  the top-level field itself (assigned after the nested ones, so ids stay unique). */
  def assignIds(t: DataType, start: Int): (DataType, Int) = {
    var next = start
    def go(t: DataType): DataType = t match {
      case r: RowType => r.copy(fields = r.fields.map { f =>
          val nt = go(f.dataType); val id = next; next += 1; f.copy(id = id, dataType = nt)
        })
      case a: ArrayType => a.copy(element = go(a.element))
      case m: MapType => m.copy(key = go(m.key), value = go(m.value))
      case other => other
    }
    val nt = go(t)
    (nt, next)
  }

  /** Type changes that keep every existing value representable. */
  def canWiden(from: DataType, to: DataType): Boolean = {
    def rank(t: DataType): Int = t match {
      case _: TinyIntType => 0
      case _: SmallIntType => 1
      case _: IntType => 2
      case _: BigIntType => 3
      case _ => -1
    }
    (from, to) match {
      case (a, b) if a.withNullable(true) == b.withNullable(true) => true
      case (a, b) if rank(a) >= 0 && rank(b) >= 0 => rank(b) >= rank(a)
      case (_: FloatType, _: DoubleType) => true
      case (a, _: DoubleType) if rank(a) >= 0 && rank(a) <= 2 => true
      case (a: DecimalType, b: DecimalType) =>
        b.scale >= a.scale && (b.precision - b.scale) >= (a.precision - a.scale)
      case (a, b: DecimalType) if rank(a) >= 0 =>
        val digits = Array(3, 5, 10, 19)(rank(a))
        b.precision - b.scale >= digits
      case (a: VarCharType, b: VarCharType) => b.length >= a.length
      case (a: CharType, b: VarCharType) => b.length >= a.length
      case _ => false
    }
  }
}
