package lamina.mergetree

import lamina.errors.BadInputException
import lamina.table.options.OptionDef
import lamina.types.DataField

/** Builds the merge function of a primary-key table from its schema and options, and decides which
 *  row-level DML its merge engine honours. */
object MergeFunctions {

  /** A factory of fresh merge functions (one per reader or compaction task; they are not thread-safe).
   *  All options are checked here, once, so that a bad table fails at the first read or write rather
   *  than in the middle of one. */
  def create(
      fields: Seq[DataField],
      primaryKeys: Seq[String],
      options: Map[String, String],
      table: String): () => MergeFunction = {
    val names = fields.map(_.name)
    primaryKeys.foreach { pk =>
      if (!names.contains(pk)) throw new BadInputException(s"Primary key column '$pk' of table $table does not exist")
    }
    val engine = tableOption(MergeTreeOptions.MergeEngine, options, table).toLowerCase
    val ignoreDelete = tableOption(MergeTreeOptions.IgnoreDelete, options, table)
    val seqFields = sequenceFields(fields, options, table)
    if (engine == "first-row" && seqFields.nonEmpty)
      throw new BadInputException(
        s"Table $table: option 'sequence.field' cannot be used with merge-engine first-row, which keeps the earliest written row")
    val base: () => MergeFunction = engine match {
      case "deduplicate" => () => new DeduplicateMergeFunction(ignoreDelete)
      case "first-row" => () => new FirstRowMergeFunction
      case other =>
        throw new BadInputException(s"Table $table: merge-engine '$other' is not supported yet")
    }
    if (seqFields.isEmpty) base
    else () => new SequenceFieldMergeFunction(base(), seqFields)
  }

  /** An option's value or default; a bad value fails naming the table as well as the option. */
  private[mergetree] def tableOption[T](d: OptionDef[T], options: Map[String, String], table: String): T =
    try d.getOrDefault(options)
    catch { case e: BadInputException => throw new BadInputException(s"Table $table: ${e.getMessage}", e) }

  /** The getters and orders of the `sequence.field` columns, checked against the schema. */
  private def sequenceFields(
      fields: Seq[DataField],
      options: Map[String, String],
      table: String): Array[(FieldGetter, Ordering[Any])] = {
    val getters = FieldGetter.all(fields)
    options.get(MergeTreeOptions.SequenceField.key).map(MergeTreeOptions.SequenceField.parseOrFail).getOrElse(Nil).map { name =>
      val g = getters.find(_.field.name == name).getOrElse(throw new BadInputException(
        s"Table $table: column '$name' named by option 'sequence.field' does not exist"))
      val ord = ValueOrdering.of(g.field.dataType).getOrElse(throw new BadInputException(
        s"Table $table: column '$name' named by option 'sequence.field' has type ${g.field.dataType.asSQLString}, which has no order"))
      (g, ord)
    }.toArray
  }

  /** Which row-level DML a merge engine honours: None when `op` is allowed, Some(reason) when it must
   *  be rejected at analysis. `op` is DELETE, UPDATE, MERGE_DELETE, MERGE_UPDATE or INSERT_OVERWRITE;
   *  `updatedColumns` are the assigned columns of an UPDATE (or of MERGE's update clauses; empty means
   *  unknown, taken as every non-key column). */
  def unsupportedDml(
      op: String,
      updatedColumns: Seq[String],
      fields: Seq[DataField],
      primaryKeys: Seq[String],
      partitionKeys: Seq[String],
      options: Map[String, String],
      table: String): Option[String] =
    DmlRules.check(op, updatedColumns, fields, primaryKeys, partitionKeys, options, table)
}
