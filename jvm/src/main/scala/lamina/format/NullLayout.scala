package lamina.format

/** How a binary row lays out null DECIMAL(p > 18) and TIMESTAMP(p > 3) fields; see [[BinaryRowCodec]].
 *  Every other null field is a set null bit and a zero slot in both layouts. */
sealed trait NullLayout
object NullLayout {

  /** Paimon's Java writers: a zeroed variable-part chunk is reserved and the slot points at it. */
  case object Reserved extends NullLayout

  /** pypaimon: zero slot, no chunk. */
  case object Zeroed extends NullLayout
}
