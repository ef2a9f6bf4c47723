package lamina.table.scan

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow

import lamina.format.{BinaryRowCodec, Bucket, KeyHashFunction}
import lamina.table.FileStoreTable
import lamina.table.manifest.DataFileMeta
import lamina.types.{DataType, SparkTypes}

/** Narrows a primary-key table's planned splits to what rows whose columns take values of
 *  [[KeySet]]s can be in:
 *  - a split of a partition whose value of a partition column is in no set of that column;
 *  - a split of a fixed bucket that no value of the set of the bucket key (a single column) hashes to;
 *  - a file whose range of a key column holds no value of that column's set (of the bucket key's set,
 *    no value that hashes to the file's bucket): the first key column's range from the file's min and
 *    max keys, the others' from its key statistics.
 *  A file left out holds no row of a wanted key, so every version of a wanted key is still read and
 *  merged; the rows of other keys may then merge wrongly, which is why the reader must drop them
 *  ([[KeySet.contains]]) or the query must not need them (the rows a join cannot match). */
object KeySetPruning {

  /** The pruned splits, and how many files of `splits` were left out. */
  def prune(table: FileStoreTable, splits: Seq[DataSplit], keySets: Seq[KeySet]): (Seq[DataSplit], Int) = {
    val schema = table.schema
    val keys = schema.trimmedPrimaryKeys
    val keyTypes = keys.map(k => schema.field(k).get.dataType)
    val keySparkTypes = keyTypes.map(SparkTypes.toSpark)
    val byKey = keySets.filter(s => keys.contains(s.column)).map(s => keys.indexOf(s.column) -> s)
    val byPartition = keySets.filter(s => schema.partitionKeys.contains(s.column))
      .map(s => schema.partitionKeys.indexOf(s.column) -> s)
    val partitionTypes = schema.partitionTypes.map(SparkTypes.toSpark)
    val bucketSet = keySets.find(s => table.numBuckets > 0 && schema.bucketKeys == Seq(s.column))
    // per bucket count: each bucket's own values of the bucket key's set (only they can be in its files)
    val bucketValues = scala.collection.mutable.HashMap.empty[Int, Map[Int, KeySet]]
    def valuesOf(total: Int): Option[Map[Int, KeySet]] = bucketSet.filter(_ => total > 0).map { set =>
      bucketValues.getOrElseUpdate(total, {
          val hash = new KeyHashFunction(Array(0), Seq(schema.field(set.column).get.dataType))
          val row = new GenericInternalRow(1)
          val of = set.sorted.map { v => row.update(0, v); Bucket.bucketOfHash(hash(row), total) }
          set.sorted.indices.groupBy(of(_)).map { case (b, at) =>
            b -> new KeySet(set.column, set.dataType, at.map(set.sorted).toArray)
          }
        })
    }
    def partitionWanted(split: DataSplit): Boolean = byPartition.isEmpty || {
      val row = table.manifestStore.decodePartition(split.partition)
      byPartition.forall { case (i, set) => set.contains(row.get(i, partitionTypes(i))) }
    }
    def fileWanted(f: DataFileMeta, sets: Seq[(Int, KeySet)]): Boolean = sets.isEmpty || {
      val bounds = keyBounds(f, keyTypes.size, keyTypes, keySparkTypes)
      sets.forall { case (i, set) => bounds(i).forall { case (lo, hi) => set.anyWithin(lo, hi) } }
    }
    var skipped = 0
    val pruned = splits.flatMap { split =>
      val buckets = valuesOf(split.totalBuckets)
      val own = buckets.flatMap(_.get(split.bucket))
      if ((buckets.nonEmpty && own.isEmpty) || !partitionWanted(split)) {
        skipped += split.files.size
        None
      } else {
        val sets = own.fold(byKey)(o => byKey.map { case (i, set) => if (set.column == o.column) (i, o) else (i, set) })
        val files = split.files.filter(fileWanted(_, sets))
        skipped += split.files.size - files.size
        if (files.isEmpty) None
        else {
          val names = files.map(_.fileName).toSet
          Some(split.copy(files = files, deletionFiles = split.deletionFiles.filter { case (n, _) => names(n) }))
        }
      }
    }
    (pruned, skipped)
  }

  /** Each key column's [min, max] in `f`, where known: the first from the file's min and max keys (exact
   *  bounds of the sorted keys' first column), the others from its key statistics. */
  private def keyBounds(f: DataFileMeta, arity: Int, keyTypes: Seq[DataType],
      sparkTypes: Seq[org.apache.spark.sql.types.DataType]): IndexedSeq[Option[(Any, Any)]] = {
    def column(min: InternalRow, max: InternalRow, i: Int): Option[(Any, Any)] =
      if (i >= min.numFields || i >= max.numFields || min.isNullAt(i) || max.isNullAt(i)) None
      else Some((min.get(i, sparkTypes(i)), max.get(i, sparkTypes(i))))
    // unreadable bounds prune nothing
    def decoded(min: Array[Byte], max: Array[Byte]): Option[(InternalRow, InternalRow)] =
      try Some((BinaryRowCodec.deserialize(min, keyTypes), BinaryRowCodec.deserialize(max, keyTypes)))
      catch { case _: Exception => None }
    val stats = Option(f.keyStats).filter(s => s.minValues != null && s.maxValues != null)
      .flatMap(s => decoded(s.minValues, s.maxValues))
    val fromStats = (0 until arity).map(i => stats.flatMap { case (lo, hi) => column(lo, hi, i) })
    val first = decoded(f.minKey, f.maxKey).flatMap { case (lo, hi) => column(lo, hi, 0) }
    first.orElse(fromStats(0)) +: fromStats.drop(1)
  }
}
