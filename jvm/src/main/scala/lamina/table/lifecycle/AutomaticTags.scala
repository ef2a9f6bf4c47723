package lamina.table.lifecycle

import java.time.{Duration, Instant, LocalDateTime, ZoneId}

import lamina.errors.AlreadyExistsException
import lamina.table.FileStoreTable
import lamina.table.options.{CoreOptions, TagCreationMode, TagCreationPeriod}

/** Paimon's `tag.automatic-creation = process-time`: after a commit, the latest snapshot is tagged
 *  once a period (and the delay) has passed since the last automatic tag, under the name of the period
 *  before its commit time (the JVM's time zone, as Paimon); then the oldest automatic tags beyond
 *  `tag.num-retained-max` are deleted. Automatic tags are the tags whose names are periods. */
object AutomaticTags {

  /** The period to tag for a snapshot committed at `time`, given the last automatically tagged
   *  period; None while that one is still the latest due. Pure. */
  def periodToTag(period: TagCreationPeriod, time: LocalDateTime, delayMillis: Long,
      lastTagged: Option[LocalDateTime]): Option[LocalDateTime] = {
    val settled = time.minus(Duration.ofMillis(delayMillis))
    val candidate = period.previousPeriod(settled)
    if (lastTagged.forall(last => candidate.isAfter(last))) Some(candidate) else None
  }

  /** The automatic tags to delete, oldest first, so that at most `max` remain. Pure. */
  def beyondMax(tags: Seq[(String, LocalDateTime)], max: Option[Int]): Seq[String] =
    max.toSeq.flatMap(m => tags.sortBy(_._2).dropRight(m).map(_._1))

  def afterCommit(table: FileStoreTable): Unit = {
    val options = table.options
    if (CoreOptions.TagAutomaticCreation.getOrDefault(options) == TagCreationMode.None) return
    val period = CoreOptions.TagCreationPeriod.getOrDefault(options)
    val latest = table.snapshotManager.latest().getOrElse(return
    )
    val tags = table.snapshotManager.tags
    def automatic() = tags.names().flatMap(n => period.parse(n).map(n -> _))
    val time = LocalDateTime.ofInstant(Instant.ofEpochMilli(latest.timeMillis), ZoneId.systemDefault())
    val retained = CoreOptions.TagDefaultTimeRetained.get(options).map(Duration.ofMillis)
    periodToTag(period, time, CoreOptions.TagCreationDelay.getOrDefault(options), automatic().map(_._2).maxOption)
      .foreach { p =>
        try Tags.create(table, period.tagName(p), Some(latest.id), retained)
        catch { case _: AlreadyExistsException => () } // a concurrent commit made it
      }
    beyondMax(automatic(), CoreOptions.TagNumRetainedMax.get(options)).foreach(Tags.delete(table, _))
  }
}
