package lamina.spark

import org.apache.spark.sql.SparkSession

/** What Spark's UI (jobs and stages pages) says of the Spark jobs Lamina's maintenance starts: a
 *  description (`lamina: compact db.t partition p=1, 12 buckets`) and the job tag `lamina` (so that
 *  `SparkContext.cancelJobsWithTag("lamina")` cancels them). A tag rather than a job group, since a
 *  job group would replace the caller's own (notebooks cancel cells by their group). */
object JobDescription {
  final val Tag = "lamina"

  /** Spark's local property holding a job's description (`SparkContext.setJobDescription`). */
  final val Property = "spark.job.description"

  /** Runs `body` with the jobs it starts described as `text` and tagged, then restores the thread's
   *  description and tags as they were. */
  def during[T](spark: SparkSession, text: String)(body: => T): T = {
    val sc = spark.sparkContext
    val previous = sc.getLocalProperty(Property)
    val tagged = sc.getJobTags().contains(Tag)
    sc.setJobDescription(text)
    sc.addJobTag(Tag)
    try body
    finally {
      sc.setLocalProperty(Property, previous)
      if (!tagged) sc.removeJobTag(Tag)
    }
  }
}
