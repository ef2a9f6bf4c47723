package lamina.table.options

/** How long a table keeps its changelog: `changelog.num-retained.min/max` and
 *  `changelog.time-retained`, each defaulting to its snapshot counterpart. Unless they outlive the
 *  snapshot options, a changelog expires with the snapshot that lists it (Paimon's coupled lifecycle);
 *  otherwise snapshot expiration keeps it in `changelog/` ([[lamina.table.snapshot.Changelog]]). */
object ChangelogRetention {

  /** Whether the options ask to keep changelogs longer than snapshots (Paimon's decoupled
   *  changelog, its `changelog/` directory), as Paimon's `changelogLifecycleDecoupled` decides. Pure. */
  def outlivesSnapshots(o: Map[String, String]): Boolean = {
    import CoreOptions._
    def longer[T](c: OptionDef[T], s: OptionDef[T])(implicit ord: Ordering[T]) =
      c.get(o).exists(v => ord.gt(v, s.getOrDefault(o)))
    longer(ChangelogNumRetainedMin, SnapshotNumRetainedMin) || longer(ChangelogNumRetainedMax, SnapshotNumRetainedMax) ||
    longer(ChangelogTimeRetained, SnapshotTimeRetained)
  }
}
