package lamina.spark.compact

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow

import lamina.mergetree.KeyValueReaders
import lamina.spark.JobDescription
import lamina.spark.read.DataFileReaders
import lamina.table.{FileStoreTable, KeyValueLayout}
import lamina.table.compact.{FileIndexRewrite, FileIndexTasks}
import lamina.types.SparkTypes

/** The files of a file-index rewrite read and indexed in Spark tasks of the active session: a reader
 *  of the indexed columns per schema id, prepared on the driver (the value columns of a primary-key
 *  table's files), the job described in Spark's UI. */
object SparkFileIndexRewrite extends FileIndexTasks {

  override def rewrite(plan: FileIndexRewrite.Plan): Seq[FileIndexRewrite.Rewritten] = {
    if (plan.work.isEmpty) return Seq.empty
    val spark = SparkSession.active
    val table = plan.table
    val readers = plan.columns.collect { case (id, Some(c)) =>
      val s = if (id == table.schema.id) table.schema else table.schemaManager.schema(id)
      val stored = if (table.isPrimaryKeyTable) KeyValueLayout(s).fileStruct else SparkTypes.toSparkStruct(s.fields)
      id -> DataFileReaders.forStructs(spark, table.fileIO, stored, SparkTypes.toSparkStruct(c.fields), Seq.empty, s)
    }
    // each task gets the plan without its list of files: it indexes the ones it is given
    val shipped = plan.copy(work = Seq.empty)
    val fileIO = table.fileIO
    val name = table.name
    val files = plan.work.size
    val tasks = spark.sparkContext.parallelize(plan.work, math.max(1, math.min(files, spark.sparkContext.defaultParallelism)))
    JobDescription.during(spark, s"lamina: rewrite file index ${table.name}, $files file${if (files == 1) "" else "s"}") {
      tasks.mapPartitions(_.flatMap { w =>
        val f = w.entry.file
        FileIndexRewrite.rewrite(fileIO, shipped, w, {
            val r = readers(f.schemaId)
            r.open(w.dir, KeyValueReaders.refOf(f), name).map(r.projection())
          })
      }).collect().toSeq
    }
  }

  override def partitionsWhere(table: FileStoreTable, where: String): InternalRow => Boolean =
    SparkAppendRewrite.partitionsWhere(table, where)
}
