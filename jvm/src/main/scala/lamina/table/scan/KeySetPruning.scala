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
 *  - a file whose range of a key column holds no value of that column's set: the first key column's
 *    range from the file's min and max keys, the others' from its key statistics.
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
    val bucketsOf = scala.collection.mutable.HashMap.empty[Int, Set[Int]]
    def wantedBuckets(total: Int): Set[Int] = bucketSet match {
      case Some(set) if total > 0 =>
        bucketsOf.getOrElseUpdate(total, {
            val hash = new KeyHashFunction(Array(0), Seq(schema.field(set.column).get.dataType))
            set.sorted.iterator.map(v => Bucket.bucketOfHash(hash(new GenericInternalRow(Array(v))), total)).toSet
          })
      case _ => null
    }
    def partitionWanted(split: DataSplit): Boolean = byPartition.isEmpty || {
      val row = table.manifestStore.decodePartition(split.partition)
      byPartition.forall { case (i, set) => set.contains(row.get(i, partitionTypes(i))) }
    }
    def fileWanted(f: DataFileMeta): Boolean = byKey.isEmpty || {
      val bounds = keyBounds(f, keyTypes.size, keyTypes, keySparkTypes)
      byKey.forall { case (i, set) => bounds(i).forall { case (lo, hi) => set.anyWithin(lo, hi) } }
    }
    var skipped = 0
    val pruned = splits.flatMap { split =>
      val buckets = wantedBuckets(split.totalBuckets)
      if ((buckets != null && !buckets.contains(split.bucket)) || !partitionWanted(split)) {
        skipped += split.files.size
        None
      } else {
        val files = split.files.filter(fileWanted)
        skipped += split.files.size - files.size
        if (files.isEmpty) None
        else Some(split.copy(files = files,
            deletionFiles = split.deletionFiles.filter { case (n, _) => files.exists(_.fileName == n) }))
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
