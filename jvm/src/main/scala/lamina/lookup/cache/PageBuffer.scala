package lamina.lookup.cache

import java.lang.invoke.VarHandle

/** A byte array that holds one cached page after another: the [[BufferPool]] hands an evicted page's
 *  array to the next load instead of allocating (a fresh 64 KiB array costs more than the copy into it,
 *  its memory being cold).
 *
 * Its generation counts the loads it has held. A reader may still be using an array when the pool
 * reuses it (it fetched the page just before eviction), so readers validate, as an optimistic lock
 * does: a [[Page]] records the generation it was loaded at, and whatever a reader derived from its bytes
 * counts only if the generation is still the same afterwards ([[Page.isCurrent]]). A reader that fails
 * validation fetches the page again. The generation is raised before new bytes are written, so a
 * reader that saw any of them fails validation.
 */
final class PageBuffer(val bytes: Array[Byte]) {
  @volatile private var gen: Long = 0L

  def capacity: Int = bytes.length

  def generation: Long = gen

  /** True while no load has reused the array since generation `g`: reads of `bytes` made before this
   *  call saw that generation's bytes. */
  def isAt(g: Long): Boolean = {
    VarHandle.acquireFence() // earlier reads of the bytes may not move below the generation read
    gen == g
  }

  /** Starts a new generation before the array is overwritten; returns it. Only the pool calls this,
   *  for a buffer no load is filling. */
  private[cache] def reuse(): Long = {
    val g = gen + 1
    gen = g
    VarHandle.storeStoreFence() // the new generation is visible before any byte written after it
    g
  }
}
