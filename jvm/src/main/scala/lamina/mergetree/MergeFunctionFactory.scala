package lamina.mergetree

/** Makes the fresh merge functions of one table: one per reader or compaction task, as merge
 *  functions are not thread-safe. Serializable, and only plain values cross the wire: it is built on
 *  the driver and used in executors, where it builds what it makes from the table's schema and
 *  options. */
trait MergeFunctionFactory extends Serializable {
  def create(): MergeFunction
}
