package lamina.spark

import org.apache.spark.sql.catalyst.analysis.EliminateSubqueryAliases
import org.apache.spark.sql.catalyst.expressions.{
  Alias,
  And,
  Attribute,
  AttributeReference,
  EqualNullSafe,
  EqualTo,
  Expression,
  If,
  IsNotNull,
  Literal,
  NamedExpression,
  Not,
  Or,
  PredicateHelper
}
import org.apache.spark.sql.catalyst.plans.logical.{
  AppendData,
  Assignment,
  DeleteAction,
  Filter,
  InsertAction,
  LogicalPlan,
  MergeIntoTable,
  Project,
  UpdateAction
}
import org.apache.spark.sql.catalyst.rules.Rule

import lamina.mergetree.RowKind
import lamina.table.FileStoreTable
import lamina.table.options.{CoreOptions, MergeEngine}
import lamina.table.sink.PrimaryKeyWrites

/** Plans the MERGE INTO statements that need no join as plain writes of their source: on a
 *  deduplicate table, a record written under a primary key replaces (+I) or removes (-D) the table's row
 *  of that key whether or not the key is there (on a first-row table an insert is kept only when the key
 *  is absent), so these statements need neither a scan of the table
 *  nor a join, and cost what their source costs instead of what the table holds.
 *
 *  - An upsert ([[UpsertShape]]): the ON condition equates every primary-key column, and nothing else,
 *    with the source (`t.k = e`); the only clauses are one unconditional `WHEN MATCHED THEN UPDATE` and one
 *    unconditional `WHEN NOT MATCHED THEN INSERT` that give every column the same deterministic value
 *    computed from the source alone, each key column the very expression the ON condition equates it with
 *    (`UPDATE SET * ... INSERT *`). Written as inserts (+I in `$audit_log`), as an INSERT INTO writes them.
 *    MERGE's rule that a target row is matched by at most one source row becomes "the source holds each
 *    key at most once": the writers refuse a repeated key ([[MergeShapes.UniqueKeysOption]]), nothing is
 *    committed.
 *  - A delete by keys ([[KeyDeleteShape]]): the same ON condition and a single unconditional `WHEN MATCHED
 *    THEN DELETE`, on a table whose deletes may be written from their keys ([[PrimaryKeyWrites.keyOnlyDeletes]]:
 *    not with `sequence.field` nor `changelog-producer` `input`, where a delete record carries the
 *    deleted row, which only the table holds). Written as -D records of the source's keys
 *    ([[MergeShapes.RowKindOption]]); source rows with a NULL key match nothing and are dropped.
 *
 *  - An insert of absent keys ([[InsertIfAbsentShape]]) on a `first-row` table, which keeps the first row
 *    written under each key: the same ON condition and a single unconditional `WHEN NOT MATCHED THEN
 *    INSERT` whose key columns get the expressions the ON condition equates them with. Written as
 *    inserts: a key the table holds keeps its row.
 *
 *  - A change set ([[ChangeShape]]), the way a batch of changes with a delete flag is applied: the same
 *    ON condition, `WHEN MATCHED AND c THEN DELETE WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED AND NOT c
 *    THEN INSERT *` with `c` a deterministic condition on the source alone that is never NULL (for a NULL
 *    `c` the statement updates a key that is there and inserts none that is not, which no record without
 *    reading the table can do: such MERGEs keep the row-level plan), on a table whose deletes may be
 *    written from their keys.
 *    Each source row is written as a -D record of its key where `c` holds and as an upsert where it does
 *    not: the kind travels in a column of its own ([[KindedWriteTable]]). A key the source holds twice is
 *    refused as for an upsert.
 *
 *  The target must be read at its latest snapshot and have no `rowkind.field` (whose plain writes take
 *  their kind from a column). Any other MERGE keeps Spark's row-level plan. */
final class MergeIntoAsWrite extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperators {
    case m: MergeIntoTable if m.resolved && m.aligned && !m.withSchemaEvolution =>
      val relation = EliminateSubqueryAliases(m.targetTable)
      UpsertShape.of(m).map { columns =>
        AppendData.byName(V2Relations.relation(relation), Project(columns, m.sourceTable),
          Map(MergeShapes.UniqueKeysOption -> "true"))
      }.orElse(KeyDeleteShape.of(m).map { case (keys, columns) =>
        AppendData.byName(V2Relations.relation(relation),
          Project(columns, Filter(keys.map(k => IsNotNull(k): Expression).reduce(And), m.sourceTable)),
          Map(MergeShapes.RowKindOption -> "-D"))
      }).orElse(ChangeShape.of(m).map { case (kept, columns) =>
        val kinded = V2Relations.withTable(relation, new KindedWriteTable(V2Relations.laminaTableOf(relation).get),
          Seq(AttributeReference(KindedWriteTable.KindColumn, KindedWriteTable.KindType, nullable = false)()))
        AppendData.byName(kinded, Project(columns, Filter(kept, m.sourceTable)),
          Map(MergeShapes.UniqueKeysOption -> "true", MergeShapes.RowKindColumnOption -> KindedWriteTable.KindColumn))
      }).orElse(InsertIfAbsentShape.of(m).map { columns =>
        AppendData.byName(V2Relations.relation(relation), Project(columns, m.sourceTable))
      }).getOrElse(m)
  }
}

object MergeShapes extends PredicateHelper {

  /** Prefix of the write options only Lamina's own plans set (the three below); a query's options may
   *  carry them past the option checks. */
  val InternalOptionPrefix = "lamina.write."

  /** Write option that makes a primary-key table's writers refuse two records of one key in one
   *  write (what MERGE's cardinality rule becomes once it is planned as an upsert). */
  val UniqueKeysOption: String = InternalOptionPrefix + "unique-keys"

  /** Write option that makes a primary-key table's writers write every row as a record of this kind. */
  val RowKindOption: String = InternalOptionPrefix + "row-kind"

  /** Write option naming the trailing column of the written rows that holds each row's kind as its
   *  byte (+I 0, -D 3); the column is not stored ([[KindedWriteTable]]). */
  val RowKindColumnOption: String = InternalOptionPrefix + "row-kind-column"

  /** The target of `m` when it is a primary-key table with merge engine `engine` at its latest snapshot
   *  without `rowkind.field`, with its output attributes. */
  def target(m: MergeIntoTable, engine: MergeEngine = MergeEngine.Deduplicate): Option[(FileStoreTable, Seq[Attribute])] =
    V2Relations.laminaTableOf(m.targetTable).collect {
      case lt
          if lt.pinnedSnapshot.isEmpty && lt.table.isPrimaryKeyTable &&
            MergeEngine.of(lt.table.options, lt.table.name) == engine &&
            !lt.table.options.contains(CoreOptions.RowKindField.key) => (lt.table, EliminateSubqueryAliases(m.targetTable).output)
    }

  /** The value each assignment writes to the target column of the same position, without the alias
   *  alignment gave it (a NULL check Spark added stays: it is written too), when every assignment
   *  writes its own column a deterministic value computed from the source alone. */
  def sourceValues(assignments: Seq[Assignment], target: Seq[Attribute], m: MergeIntoTable): Option[IndexedSeq[Expression]] = {
    if (assignments.size != target.size) return None
    val source = m.sourceTable.outputSet
    val values = target.indices.map { i =>
      val a = assignments(i)
      val v = a.value match { case al: Alias => al.child; case other => other }
      val own = a.key match { case k: Attribute => k.exprId == target(i).exprId; case _ => false }
      if (!own || !v.deterministic || !v.references.subsetOf(source)) return None
      v
    }
    Some(values)
  }

  /** The projection writing `values` as the target's columns, when the ON condition equates exactly the
   *  primary-key columns with the values written to them (so that "matched" means "the key is there"). */
  def keyedProjection(m: MergeIntoTable, table: FileStoreTable, target: Seq[Attribute],
      values: IndexedSeq[Expression]): Option[Seq[NamedExpression]] =
    keyEqualities(m, table, target).flatMap(keyed(values, target, _))

  /** The projection writing `values` as the target's columns, each non-key value through `nonKey`, when
   *  each key column's value is the expression `equated` (from [[keyEqualities]]) gives it. */
  def keyed(values: IndexedSeq[Expression], target: Seq[Attribute], equated: Map[Int, Expression],
      nonKey: (Int, Expression) => Expression = (_, v) => v): Option[Seq[NamedExpression]] =
    if (!equated.forall { case (i, b) => AssignedValue.bare(values(i)).semanticEquals(b) }) None
    else Some(target.indices.map(i => Alias(if (equated.contains(i)) values(i) else nonKey(i, values(i)), target(i).name)()))

  /** The values an UPDATE SET and an INSERT both write (see [[sourceValues]]), when they write the same. */
  def sameRow(updates: Seq[Assignment], inserts: Seq[Assignment], target: Seq[Attribute],
      m: MergeIntoTable): Option[IndexedSeq[Expression]] = {
    val values = sourceValues(updates, target, m).getOrElse(return None)
    val inserted = sourceValues(inserts, target, m).getOrElse(return None)
    if (values.indices.forall(i => AssignedValue.bare(values(i)).semanticEquals(AssignedValue.bare(inserted(i))))) Some(values)
    else None
  }

  /** Whether a delete record needs only the key ([[PrimaryKeyWrites.keyOnlyDeletes]]). */
  def blindDeletes(table: FileStoreTable): Boolean = PrimaryKeyWrites.keyOnlyDeletes(table)

  /** What a record that deletes writes in a column it does not read: NULL, or a placeholder where the
   *  column is NOT NULL. */
  def placeholder(column: Attribute): Expression =
    if (column.nullable) Literal(null, column.dataType) else Literal.default(column.dataType)

  /** The source expression the ON condition equates with each primary-key column, by the column's
   *  position in `target`, when the condition is exactly such equalities, one per key column. */
  def keyEqualities(m: MergeIntoTable, table: FileStoreTable, target: Seq[Attribute]): Option[Map[Int, Expression]] = {
    def column(e: Expression): Int = e match {
      case a: Attribute => target.indexWhere(_.exprId == a.exprId)
      case _ => -1
    }
    val equated = splitConjunctivePredicates(m.mergeCondition).map {
      case EqualTo(a, b) if column(a) >= 0 => (column(a), b)
      case EqualTo(b, a) if column(a) >= 0 => (column(a), b)
      case EqualNullSafe(a, b) if column(a) >= 0 => (column(a), b)
      case EqualNullSafe(b, a) if column(a) >= 0 => (column(a), b)
      case _ => return None
    }
    val keys = table.schema.primaryKeys.map(k => target.indexWhere(_.name.equalsIgnoreCase(k)))
    val source = m.sourceTable.outputSet
    val ok = equated.map(_._1).toSet == keys.toSet && equated.size == keys.size &&
      equated.forall { case (_, b) => b.deterministic && b.references.subsetOf(source) }
    if (ok) Some(equated.toMap) else None
  }
}

object UpsertShape {

  /** The source projection that upserts what `m` writes (one named value per target column, in the
   *  table's order), or None when `m` is not an upsert of its source (see [[MergeIntoAsWrite]]). */
  def of(m: MergeIntoTable): Option[Seq[NamedExpression]] = {
    val (table, target) = MergeShapes.target(m).getOrElse(return None)
    val (updates, inserts) = (m.matchedActions, m.notMatchedActions, m.notMatchedBySourceActions) match {
      case (Seq(UpdateAction(None, u)), Seq(InsertAction(None, i)), Seq()) => (u, i)
      case _ => return None
    }
    MergeShapes.sameRow(updates, inserts, target, m).flatMap(MergeShapes.keyedProjection(m, table, target, _))
  }
}

object ChangeShape {

  /** The condition selecting the source rows to write (a row to delete needs a key: one with a NULL key
   *  matches nothing) and the projection writing each as the target's columns and its kind, or None when
   *  `m` is not a change set (see [[MergeIntoAsWrite]]). A deleted row's non-key columns are written
   *  NULL, or a placeholder where NOT NULL, so that its values, which the statement never writes, are
   *  not computed (nor checked). */
  def of(m: MergeIntoTable): Option[(Expression, Seq[NamedExpression])] = {
    val (table, target) = MergeShapes.target(m).getOrElse(return None)
    val (deleted, updates, inserted, inserts) = (m.matchedActions, m.notMatchedActions, m.notMatchedBySourceActions) match {
      case (Seq(DeleteAction(Some(c)), UpdateAction(None, u)), Seq(InsertAction(Some(d), i)), Seq()) => (c, u, d, i)
      case _ => return None
    }
    if (!MergeShapes.blindDeletes(table)) return None
    if (target.exists(_.name.equalsIgnoreCase(KindedWriteTable.KindColumn))) return None
    if (deleted.nullable || !deleted.deterministic || !deleted.references.subsetOf(m.sourceTable.outputSet)) return None
    if (!negates(inserted, deleted)) return None
    val values = MergeShapes.sameRow(updates, inserts, target, m).getOrElse(return None)
    val keys = MergeShapes.keyEqualities(m, table, target).getOrElse(return None)
    val columns = MergeShapes.keyed(values, target, keys,
      (i, v) => If(deleted, MergeShapes.placeholder(target(i)), v)).getOrElse(return None)
    val kind = Alias(If(deleted, Literal(RowKind.Delete), Literal(RowKind.Insert)),
      KindedWriteTable.KindColumn)()
    val keysPresent = keys.toSeq.sortBy(_._1).map { case (_, e) => IsNotNull(e): Expression }.reduce(And)
    Some((Or(Not(deleted), keysPresent), columns :+ kind))
  }

  /** Whether `d` is NOT `c` for a `c` that is never NULL: `NOT c` itself (`x <> v` for `x = v`), or `x =
   *  false` for `x = true`. */
  private def negates(d: Expression, c: Expression): Boolean = d.semanticEquals(Not(c)) || c.semanticEquals(Not(d)) ||
    ((c, d) match {
      case (EqualTo(x, Literal(true, _)), EqualTo(y, Literal(false, _))) => x.semanticEquals(y) && !x.nullable
      case _ => false
    })
}

object KeyDeleteShape {

  /** The source's key expressions and the projection that writes them as the rows to delete (other
   *  columns NULL, or a placeholder where NOT NULL: a delete record's other values are not read), or
   *  None when `m` is not a delete by keys (see [[MergeIntoAsWrite]]). */
  def of(m: MergeIntoTable): Option[(Seq[Expression], Seq[NamedExpression])] = {
    val (table, target) = MergeShapes.target(m).getOrElse(return None)
    (m.matchedActions, m.notMatchedActions, m.notMatchedBySourceActions) match {
      case (Seq(DeleteAction(None)), Seq(), Seq()) =>
      case _ => return None
    }
    if (!MergeShapes.blindDeletes(table)) return None
    val equated = MergeShapes.keyEqualities(m, table, target).getOrElse(return None)
    if (!equated.forall { case (i, b) => b.dataType == target(i).dataType }) return None
    val columns = target.indices.map { i =>
      Alias(equated.getOrElse(i, MergeShapes.placeholder(target(i))), target(i).name)()
    }
    Some((equated.toSeq.sortBy(_._1).map(_._2), columns))
  }
}

object InsertIfAbsentShape {

  /** The source projection whose rows a first-row table keeps only where their key is absent, or None
   *  when `m` is not such an insert (see [[MergeIntoAsWrite]]). */
  def of(m: MergeIntoTable): Option[Seq[NamedExpression]] = {
    val (table, target) = MergeShapes.target(m, engine = MergeEngine.FirstRow).getOrElse(return None)
    val inserts = (m.matchedActions, m.notMatchedActions, m.notMatchedBySourceActions) match {
      case (Seq(), Seq(InsertAction(None, i)), Seq()) => i
      case _ => return None
    }
    MergeShapes.sourceValues(inserts, target, m).flatMap(MergeShapes.keyedProjection(m, table, target, _))
  }
}
