package lamina.table.options

/** Where a streaming read starts (`scan.mode`, [[CoreOptions.ScanMode]]), Paimon's values. A mode
 *  ending in `full` first reads one snapshot whole, then the changes of each later snapshot; the
 *  others read only changes. Modes Lamina does not implement (`supported` false) parse, so that a table
 *  Paimon stored one in stays readable, and are refused by name where they would be used. */
sealed abstract class StartupMode(name: String, val full: Boolean, val supported: Boolean = true) extends EnumValue(name)

object StartupMode {

  /** [[LatestFull]], or [[FromSnapshot]] / [[FromTimestamp]] when `scan.snapshot-id` /
   *  `scan.timestamp-millis` is set. */
  case object Default extends StartupMode("default", full = true)

  /** The latest snapshot whole, then the changes after it. */
  case object LatestFull extends StartupMode("latest-full", full = true)

  /** Paimon's older name of [[LatestFull]]. */
  case object Full extends StartupMode("full", full = true)

  /** Only the changes committed after the stream started. */
  case object Latest extends StartupMode("latest", full = false)

  /** The changes from snapshot `scan.snapshot-id` on (that snapshot's own changes included). */
  case object FromSnapshot extends StartupMode("from-snapshot", full = false)

  /** Snapshot `scan.snapshot-id` whole, then the changes after it. */
  case object FromSnapshotFull extends StartupMode("from-snapshot-full", full = true)

  /** The changes of the snapshots committed after `scan.timestamp-millis`. */
  case object FromTimestamp extends StartupMode("from-timestamp", full = false)

  /** Paimon's modes that Lamina's streams do not implement. */
  case object LatestDelta extends StartupMode("latest-delta", full = false, supported = false)
  case object CompactedFull extends StartupMode("compacted-full", full = true, supported = false)
  case object FromCreationTimestamp extends StartupMode("from-creation-timestamp", full = false, supported = false)
  case object FromFileCreationTime extends StartupMode("from-file-creation-time", full = false, supported = false)
  case object Incremental extends StartupMode("incremental", full = false, supported = false)

  val All: Seq[StartupMode] = Seq(Default, LatestFull, Full, Latest, FromSnapshot, FromSnapshotFull, FromTimestamp,
    LatestDelta, CompactedFull, FromCreationTimestamp, FromFileCreationTime, Incremental)
}
