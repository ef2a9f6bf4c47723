package lamina.mergetree.function

import scala.collection.mutable.ArrayBuffer

import lamina.mergetree.{KeyValue, MergeFunction}

/** The merge of a table whose rows above level 0 are each a key's whole merged row (lookup
 *  compaction writes them so: a table with `changelog-producer` = lookup and no deletion vectors,
 *  whose older rows stay in their files): a key's newest row above level 0 merged with its level-0
 *  records, its older rows above level 0 left out (they are merged into the newest already; merged
 *  again, an aggregate would count them twice). As Paimon's readers of such tables merge. The merge
 *  tells the level of each record ([[atLevel]]); records of unknown level count as level 0. */
final class MergedRowsMergeFunction(inner: MergeFunction) extends MergeFunction {
  private var level = 0
  private var newestAbove0: KeyValue = _
  private val level0 = ArrayBuffer.empty[KeyValue]

  override def wantsLevel: Boolean = true

  override def atLevel(l: Int): Unit = level = l

  override def reset(): Unit = {
    newestAbove0 = null
    level0.clear()
    level = 0
  }

  override def retractRefusal(kind: Byte): Option[String] = inner.retractRefusal(kind)

  override def add(kv: KeyValue): Unit = {
    val kept = if (inputsStay) kv else kv.copy()
    if (level > 0) newestAbove0 = kept else level0 += kept
  }

  private def merged(): MergeFunction = {
    inner.inputsStay = true
    inner.reset()
    if (newestAbove0 != null) inner.add(newestAbove0)
    level0.foreach(inner.add)
    inner
  }

  override def result(): Option[KeyValue] = merged().result()

  override def resultKeepingDelete(): Seq[KeyValue] = merged().resultKeepingDelete()

  override def singleInsertIsResult: Boolean = inner.singleInsertIsResult
}
