package lamina.table.bucket

import org.scalatest.funsuite.AnyFunSuite

import lamina.table.manifest.{DataFileMeta, SimpleStats}
import lamina.table.options.MergeEngine
import lamina.table.scan.DataSplit

class CrossPartitionPlanTest extends AnyFunSuite {
  private def file(name: String, created: Option[Long]) =
    DataFileMeta(name, 1L, 1L, Array.empty, Array.empty, SimpleStats.Empty, SimpleStats.Empty, 0L, 0L, 0L, 0,
      creationTimeMillis = created)
  private def split(bucket: Int, files: DataFileMeta*) = DataSplit(1L, Array.empty, bucket, -1, s"b$bucket", files)

  test("an index TTL leaves out buckets none of whose files is younger, as Paimon's bootstrap") {
    val now = 100000L
    val old = split(0, file("a", Some(1000L)), file("b", Some(2000L)))
    val mixed = split(1, file("c", Some(1000L)), file("d", Some(now - 10)))
    val unknown = split(2, file("e", None))
    val all = Seq(old, mixed, unknown)
    assert(CrossPartitionPlan.withinTtl(all, None, now) === all)
    assert(CrossPartitionPlan.withinTtl(all, Some(60000L), now).map(_.bucket) === Seq(1, 2))
    // the boundary is kept: now <= created + ttl
    assert(CrossPartitionPlan.withinTtl(Seq(mixed), Some(10L), now).map(_.bucket) === Seq(1))
    assert(CrossPartitionPlan.withinTtl(Seq(mixed), Some(9L), now).isEmpty)
  }

  test("each merge engine's handling of a key held in another partition is Paimon's") {
    assert(ExistingKeyPolicy.of(MergeEngine.Deduplicate) === ExistingKeyPolicy.DeleteOld)
    assert(ExistingKeyPolicy.of(MergeEngine.PartialUpdate) === ExistingKeyPolicy.UseOld)
    assert(ExistingKeyPolicy.of(MergeEngine.Aggregation) === ExistingKeyPolicy.UseOld)
    assert(ExistingKeyPolicy.of(MergeEngine.FirstRow) === ExistingKeyPolicy.SkipNew)
  }
}
