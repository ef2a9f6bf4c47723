package lamina.table

import lamina.errors.BadInputException
import lamina.mergetree.function.MergeFunctions
import lamina.table.options.{ChangelogProducer, CoreOptions}
import lamina.table.schema.TableSchema

/** Which changelog-producer settings a table may have (Paimon's rules), and when a table may change
 *  producer. */
object ChangelogProducerRules {

  /** Refuses what Paimon refuses (`full-compaction.delta-commits` with the lookup producer) and
   *  `changelog-producer.row-deduplicate-ignore-fields` naming a column the table lacks. */
  def check(s: TableSchema, table: String): Unit = {
    val producer = CoreOptions.ChangelogProducer.getOrDefault(s.options)
    if (producer == ChangelogProducer.Lookup && CoreOptions.FullCompactionDeltaCommits.get(s.options).isDefined)
      throw new BadInputException(s"Table $table: '${CoreOptions.FullCompactionDeltaCommits.key}' does not go with " +
        s"'${CoreOptions.ChangelogProducer.key}' = 'lookup' (each write's compaction already produces the changelog); " +
        s"use '${CoreOptions.ChangelogProducer.key}' = 'full-compaction' for changelog from periodic full compactions, " +
        s"or remove '${CoreOptions.FullCompactionDeltaCommits.key}'")
    val names = s.fields.map(_.name).toSet
    CoreOptions.ChangelogRowDeduplicateIgnoreFields.get(s.options).getOrElse(Nil).filterNot(names.contains).foreach { c =>
      throw new BadInputException(s"Table $table: option '${CoreOptions.ChangelogRowDeduplicateIgnoreFields.key}' " +
        s"names column '$c', which the table does not have")
    }
  }

  /** Refuses switching a primary-key table that holds data files to or from the lookup producer where
   *  that changes how its rows above level 0 merge ([[MergeFunctions.mergesOnlyNewestRowAbove0]]):
   *  the files written one way would be read the other (an aggregate counted twice, or partly). */
  def checkChange(table: FileStoreTable, next: TableSchema): Unit = {
    val was = MergeFunctions.mergesOnlyNewestRowAbove0(table.schema.options, table.name)
    val will = MergeFunctions.mergesOnlyNewestRowAbove0(next.options, table.name)
    if (was != will && table.isPrimaryKeyTable && table.holdsDataFiles)
      throw new BadInputException(s"Cannot ${if (will) "set" else "change"} '${CoreOptions.ChangelogProducer.key}' " +
        s"${if (will) "to 'lookup'" else "from 'lookup'"} on table ${table.name}: its merge engine's rows above level 0 " +
        s"are merged ${if (was) "into whole rows by lookup" else "with older rows"}, and it holds data files written so. " +
        "Create a new table with the option and copy the rows (INSERT INTO new SELECT * FROM old), or TRUNCATE the table first.")
  }
}
