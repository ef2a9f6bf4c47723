package lamina.mergetree

/** The keys a read asks for, as bounds on the long form of a single integral key ([[KeyOrder.LongKey]]),
 *  both inclusive: what `key BETWEEN a AND b`, `key >= a`, `key < b` or `key = a` leave of the key space.
 *  A sorted run read with a range yields only the records inside it: it starts at the first key at or
 *  above `lower` and stops, without reading further, at the first key above `upper`, so that a merge
 *  neither compares nor copies records the query drops. The query still applies its own filter: the
 *  range only narrows what reaches it. */
final case class KeyRange(lower: Long, upper: Long) {

  def isEmpty: Boolean = lower > upper

  /** Both ranges' keys. */
  def intersect(other: KeyRange): KeyRange = KeyRange(math.max(lower, other.lower), math.min(upper, other.upper))
}

object KeyRange {

  /** The records of a run, ascending by key, inside `range`: those below are skipped, and the first one
   *  above ends the run. */
  def within(records: Iterator[KeyValue], range: KeyRange, key: KeyValue => Long): Iterator[KeyValue] =
    records.dropWhile(kv => key(kv) < range.lower).takeWhile(kv => key(kv) <= range.upper)
}
