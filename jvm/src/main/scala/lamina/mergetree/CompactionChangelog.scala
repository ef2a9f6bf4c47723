package lamina.mergetree

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection}

import lamina.table.options.{ChangelogProducer, CoreOptions, TableCapabilities}
import lamina.types.{DataField, SparkTypes}

/** The changelog a compaction writes beside its output (Paimon's `changelog-producer` lookup and
 *  full-compaction): per key, the row before against the merged row after, as +I (a new key), -D (a
 *  key gone), or -U and +U. A first-row table only ever emits +I (its rows never change). Equal -U/+U
 *  pairs are dropped by full-compaction always, by lookup with `changelog-producer.row-deduplicate`. */
sealed trait CompactionChangelog extends Product with Serializable {
  def firstRow: Boolean
  def dropsEqualPairs: Boolean
}

object CompactionChangelog {

  /** lookup: each key the compaction's level-0 files hold; before is its newest row above level 0 (in
   *  the inputs, else looked up in the levels left alone). */
  final case class Lookup(firstRow: Boolean, dropsEqualPairs: Boolean) extends CompactionChangelog

  /** full-compaction: each key of a compaction into the top level `maxLevel`; before is its row in
   *  the top level. */
  final case class Full(firstRow: Boolean, maxLevel: Int) extends CompactionChangelog {
    def dropsEqualPairs: Boolean = true
  }

  /** What the table's producer asks of a compaction into `outputLevel`, if anything. */
  def of(caps: TableCapabilities, options: Map[String, String], outputLevel: Int): Option[CompactionChangelog] = {
    val o = options
    val firstRow = caps.mergeEngine.keepsFirstRecord
    caps.changelogProducer match {
      case ChangelogProducer.Lookup if outputLevel > 0 =>
        Some(Lookup(firstRow, CoreOptions.ChangelogRowDeduplicate.getOrDefault(o)))
      case ChangelogProducer.FullCompaction if outputLevel == CoreOptions.numLevels(o) - 1 =>
        Some(Full(firstRow, outputLevel))
      case _ => None
    }
  }

  /** Whether two rows of the table are equal for `changelog-producer.row-deduplicate`: every column
   *  but those of `changelog-producer.row-deduplicate-ignore-fields`, compared as Spark's binary rows.
   *  Not thread-safe. */
  def rowEquality(fields: Seq[DataField], options: Map[String, String]): (InternalRow, InternalRow) => Boolean = {
    val ignored = CoreOptions.ChangelogRowDeduplicateIgnoreFields.get(options).getOrElse(Nil).toSet
    val compared = fields.zipWithIndex.filterNot { case (f, _) => ignored.contains(f.name) }
      .map { case (f, i) => BoundReference(i, SparkTypes.toSpark(f.dataType), nullable = true) }
    val left = UnsafeProjection.create(compared.toSeq)
    val right = UnsafeProjection.create(compared.toSeq)
    (a, b) => left(a) == right(b)
  }
}
