package lamina.mergetree.function

import lamina.errors.BadInputException
import lamina.mergetree.{MergeFunction, MergeFunctionFactory}
import lamina.table.options.{ChangelogProducer, CoreOptions, MergeEngine, SequenceSortOrder, TableCapabilities}
import lamina.types.{CharType, DataField, VarCharType}

/** Builds the merge function of a primary-key table from its schema and options, and decides which
 *  row-level DML its merge engine honours. */
object MergeFunctions {

  /** Per-column options, `fields.<column>.<suffix>`. */
  private[mergetree] val AggregateFunctionSuffix = "aggregate-function"
  private[mergetree] val IgnoreRetractSuffix = "ignore-retract"
  private[mergetree] val SequenceGroupSuffix = "sequence-group"

  /** The settings of a column's aggregate function, `fields.<column>.<suffix>`. */
  private val FunctionSettingSuffixes =
    Seq(IgnoreRetractSuffix, "list-agg-delimiter", "distinct", "nested-key", "count-limit", "ts-field")
  private val AggregationSuffixes = AggregateFunctionSuffix +: FunctionSettingSuffixes

  /** The table's [[MergeFunctionFactory]], to ship to executors: it holds the schema and options only
   *  and runs [[create]] (which checks them) in the JVM that first makes a merge function. */
  def factory(fields: Seq[DataField], primaryKeys: Seq[String], options: Map[String, String],
      table: String): MergeFunctionFactory = TableMergeFunctions(fields, primaryKeys, options, table)

  private final case class TableMergeFunctions(fields: Seq[DataField], primaryKeys: Seq[String],
      options: Map[String, String], table: String)
    extends MergeFunctionFactory {
    @transient private lazy val make: () => MergeFunction = MergeFunctions.create(fields, primaryKeys, options, table)
    override def create(): MergeFunction = make()
  }

  /** A factory of fresh merge functions (one per reader or compaction task; they are not thread-safe).
   *  All options are checked here, once, so that a bad table fails when it is opened rather than in
   *  the middle of a read or write. */
  def create(
      fields: Seq[DataField],
      primaryKeys: Seq[String],
      options: Map[String, String],
      table: String): () => MergeFunction = {
    val names = fields.map(_.name)
    primaryKeys.foreach { pk =>
      if (!names.contains(pk)) throw new BadInputException(s"Table $table: primary key column '$pk' does not exist")
    }
    val engine = MergeEngine.of(options, table)
    val ignoreDelete = CoreOptions.IgnoreDelete.ofTable(options, table)
    val seqFields = sequenceFields(fields, options, table)
    rowKindField(fields, primaryKeys, options, table)
    if (engine.keepsFirstRecord && seqFields.nonEmpty)
      throw new BadInputException(
        s"Table $table: option 'sequence.field' cannot be used with merge-engine first-row, which keeps the earliest written row")
    val base: () => MergeFunction = engine match {
      case MergeEngine.Deduplicate => () => new DeduplicateMergeFunction(ignoreDelete)
      case MergeEngine.FirstRow => () => new FirstRowMergeFunction
      case MergeEngine.PartialUpdate => partialUpdate(fields, primaryKeys, options, table, ignoreDelete)
      case MergeEngine.Aggregation => aggregation(fields, primaryKeys, options, table, ignoreDelete)
    }
    val descending = CoreOptions.SequenceFieldSortOrder.ofTable(options, table) == SequenceSortOrder.Descending
    val ordered: () => MergeFunction =
      if (seqFields.isEmpty) base else () => new SequenceFieldMergeFunction(base(), seqFields, descending)
    if (mergesOnlyNewestRowAbove0(options, table)) () => new MergedRowsMergeFunction(ordered()) else ordered
  }

  /** Whether a key's rows above level 0 are each its whole merged row, older ones left in their files,
   *  so that merges take only the newest ([[MergedRowsMergeFunction]]): lookup compaction without
   *  deletion vectors (`changelog-producer` = lookup), where the merge depends on older rows. */
  def mergesOnlyNewestRowAbove0(options: Map[String, String], table: String): Boolean = {
    val caps = TableCapabilities.of(options, primaryKey = true, table)
    caps.changelogProducer == ChangelogProducer.Lookup && !caps.deletionVectors && !ignoresOlderRows(options, table) &&
    !caps.mergeEngine.keepsFirstRecord
  }

  /** Whether a key's merged row never depends on its older rows, given newer records of it (a
   *  deduplicate table without sequence field or ignore-delete): lookup compaction then needs an older
   *  row's position only, not its value. */
  def ignoresOlderRows(options: Map[String, String], table: String): Boolean =
    MergeEngine.of(options, table) == MergeEngine.Deduplicate && !CoreOptions.IgnoreDelete.ofTable(options, table) &&
      CoreOptions.SequenceField.get(options).forall(_.isEmpty)

  /** `fields.<column>.<suffix>` options: (column as written, option key, value). */
  private def columnOptions(options: Map[String, String], suffix: String): Seq[(String, String, String)] =
    options.toSeq.sortBy(_._1).collect {
      case (k, v) if k.startsWith("fields.") && k.endsWith("." + suffix) && k.length > "fields.".length + suffix.length + 1 =>
        (k.substring("fields.".length, k.length - suffix.length - 1), k, v)
    }

  private def booleanColumnOption(key: String, value: String, table: String): Boolean = value.trim.toLowerCase match {
    case "true" => true
    case "false" => false
    case _ => throw new BadInputException(s"Table $table: invalid value '$value' for option '$key': expected true or false")
  }

  private def requireColumn(fields: Seq[DataField], name: String, key: String, table: String): Int = {
    val i = fields.indexWhere(_.name == name)
    if (i < 0) throw new BadInputException(s"Table $table: column '$name' named by option '$key' does not exist")
    i
  }

  /** The ordinal of the `rowkind.field` column, checked against the schema: a STRING, CHAR or VARCHAR
   *  column outside the primary key. */
  def rowKindField(fields: Seq[DataField], primaryKeys: Seq[String], options: Map[String, String], table: String): Option[Int] = {
    val key = CoreOptions.RowKindField.key
    options.get(key).map(_.trim).map { name =>
      val i = requireColumn(fields, name, key, table)
      if (primaryKeys.contains(name))
        throw new BadInputException(s"Table $table: column '$name' named by option '$key' is a primary-key column")
      fields(i).dataType match {
        case _: VarCharType | _: CharType =>
        case t => throw new BadInputException(s"Table $table: column '$name' named by option '$key' has type " +
            s"${t.asSQLString}; it must be a STRING column holding +I, -U, +U or -D")
      }
      i
    }
  }

  /** The getters and orders of the `sequence.field` columns, checked against the schema. */
  private def sequenceFields(
      fields: Seq[DataField],
      options: Map[String, String],
      table: String): Array[(FieldGetter, Ordering[Any])] = {
    val getters = FieldGetter.all(fields)
    val key = CoreOptions.SequenceField.key
    options.get(key).map(CoreOptions.SequenceField.parseOrFail).getOrElse(Nil).map { name =>
      val g = getters(requireColumn(fields, name, key, table))
      val ord = ValueOrdering.of(g.field.dataType).getOrElse(throw new BadInputException(
          s"Table $table: column '$name' named by option '$key' has type ${g.field.dataType.asSQLString}, which has no order"))
      (g, ord)
    }.toArray
  }

  /** The function named for a column, the table default, or last_non_null_value. */
  private def aggregation(
      fields: Seq[DataField],
      primaryKeys: Seq[String],
      options: Map[String, String],
      table: String,
      ignoreDelete: Boolean): () => MergeFunction = {
    AggregationSuffixes.foreach(s => columnOptions(options, s).foreach { case (c, k, _) => requireColumn(fields, c, k, table) })
    val removeOnDelete = CoreOptions.AggregationRemoveRecordOnDelete.ofTable(options, table)
    val default = options.get(CoreOptions.DefaultAggregateFunction.key)
    val functions = fields.map { f =>
      if (primaryKeys.contains(f.name)) None
      else {
        val own = s"fields.${f.name}.$AggregateFunctionSuffix"
        options.get(own).map(_ -> own)
          .orElse(default.map(_ -> CoreOptions.DefaultAggregateFunction.key))
          .orElse(Some(AggregateFunction.Default.name -> own))
      }
    }
    def build(): Array[Option[ColumnAggregation]] = fields.zip(functions).map {
      case (f, fn) => fn.map { case (name, key) => column(f, name, key, options, table) }
    }.toArray
    build() // validate once now
    val getters = FieldGetter.all(fields)
    () => new AggregateMergeFunction(getters, build(), ignoreDelete, removeOnDelete)
  }

  private def column(f: DataField, fn: String, fnKey: String, options: Map[String, String], table: String): ColumnAggregation = {
    val key = s"fields.${f.name}.$IgnoreRetractSuffix"
    val ignoreRetract = options.get(key).exists(booleanColumnOption(key, _, table))
    new ColumnAggregation(FieldAggregator.create(fn, f, options, table, fnKey), ignoreRetract, f.name, table)
  }

  private def partialUpdate(
      fields: Seq[DataField],
      primaryKeys: Seq[String],
      options: Map[String, String],
      table: String,
      ignoreDelete: Boolean): () => MergeFunction = {
    val removeOnDelete = CoreOptions.PartialUpdateRemoveRecordOnDelete.ofTable(options, table)
    val groupOf = Array.fill[Option[SequenceGroup]](fields.length)(None)
    columnOptions(options, SequenceGroupSuffix).foreach { case (seqSpec, key, value) =>
      val seqNames = seqSpec.split(",").map(_.trim).filter(_.nonEmpty)
      val seqIdx = seqNames.map(requireColumn(fields, _, key, table))
      val orderings = seqIdx.map { i =>
        ValueOrdering.of(fields(i).dataType).getOrElse(throw new BadInputException(
            s"Table $table: sequence column '${fields(i).name}' of option '$key' has type ${fields(i).dataType.asSQLString}, which has no order"))
      }
      val members = value.split(",").map(_.trim).filter(_.nonEmpty).map(requireColumn(fields, _, key, table)).toSet
      val group = new SequenceGroup(seqIdx, orderings, members)
      (seqIdx.toSet ++ members).foreach { i =>
        if (primaryKeys.contains(fields(i).name)) throw new BadInputException(
          s"Table $table: primary key column '${fields(i).name}' cannot be part of the sequence group of option '$key'")
        if (groupOf(i).isDefined) throw new BadInputException(
          s"Table $table: column '${fields(i).name}' belongs to more than one sequence group (option '$key')")
        groupOf(i) = Some(group)
      }
    }
    val hasGroups = groupOf.exists(_.isDefined)
    if (hasGroups && removeOnDelete) throw new BadInputException(
      s"Table $table: options 'partial-update.remove-record-on-delete' and 'fields.<seq>.sequence-group' cannot be used together")
    FunctionSettingSuffixes.foreach(s =>
      columnOptions(options, s).foreach { case (c, k, _) => requireColumn(fields, c, k, table) })
    val explicit = columnOptions(options, AggregateFunctionSuffix).map { case (c, k, fn) =>
      val i = requireColumn(fields, c, k, table)
      if (groupOf(i).isEmpty || groupOf(i).exists(_.seqFields.contains(i))) throw new BadInputException(
        s"Table $table: option '$k' needs column '$c' to be a member of a sequence group ('fields.<seq>.sequence-group') " +
          "under merge-engine partial-update")
      i -> (fn -> k)
    }.toMap
    val default = options.get(CoreOptions.DefaultAggregateFunction.key)
    def build(): Array[Option[ColumnAggregation]] = fields.indices.map { i =>
      val isMember = groupOf(i).exists(g => g.members.contains(i) && !g.seqFields.contains(i))
      explicit.get(i)
        .orElse(if (isMember) default.map(_ -> CoreOptions.DefaultAggregateFunction.key) else None)
        .map { case (fn, key) => column(fields(i), fn, key, options, table) }
    }.toArray
    build()
    val getters = FieldGetter.all(fields)
    val keyFields = primaryKeys.map(pk => fields.indexWhere(_.name == pk)).toArray
    () => new PartialUpdateMergeFunction(getters, groupOf.clone(), build(), keyFields, ignoreDelete, removeOnDelete, table)
  }
}
