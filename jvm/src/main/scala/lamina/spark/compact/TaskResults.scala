package lamina.spark.compact

import scala.reflect.ClassTag

import org.apache.spark.rdd.RDD

/** Runs a job of `rdd` whose tasks each return an array, and gathers them on the driver in task
 *  order, calling `finished(task, results)` there, one task at a time, as each task's result
 *  arrives (where a job says its progress). */
object TaskResults {
  def collect[T: ClassTag](rdd: RDD[Array[T]])(finished: (Int, Array[T]) => Unit): Seq[T] = {
    val results = new Array[Array[T]](rdd.getNumPartitions)
    def done(task: Int, r: Array[T]): Unit = { results(task) = r; finished(task, r) }
    rdd.sparkContext.runJob(rdd, (it: Iterator[Array[T]]) => it.toArray.flatten, done _)
    results.toSeq.flatMap(r => if (r == null) Seq.empty else r.toSeq)
  }
}
