package lamina.table.lease

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.table.lifecycle.{LifecycleFixture, RetentionPolicy, SnapshotExpiration}

class LeaseKeeperTest extends AnyFunSuite {
  private var clock = 1000000L
  private def keeper = new LeaseKeeper(durationMillis = 60000L, renewEveryMillis = 20000L, clock = () => clock)

  test("a held lease is one file naming its snapshot and expiry; renewal replaces it; release deletes it") {
    val f = LifecycleFixture()
    val leases = f.table.leaseManager
    val k = keeper
    var running = true
    val held = k.hold(leases, 3L, () => running)
    assert(leases.all().map(_._2) === Seq(SnapshotLease(3L, clock + 60000L, LeaseKeeper.Holder)))
    assert(leases.all().head._1.getParent.toUri.getPath === new org.apache.hadoop.fs.Path(f.table.path, "lease").toUri.getPath)
    clock += 20000L
    k.renewAll()
    assert(leases.all().map(_._2.expireAtMillis) === Seq(clock + 60000L))
    assert(leases.oldestLeased(clock) === Some(3L))
    held.release()
    assert(leases.all().isEmpty && k.heldCount === 0)
    // a lease whose reader ended goes at the next sweep
    k.hold(leases, 4L, () => running)
    assert(leases.oldestLeased(clock) === Some(4L))
    running = false
    k.sweep()
    assert(leases.all().isEmpty && k.heldCount === 0)
  }

  test("a sweep for one table releases only that table's ended leases") {
    val (a, b) = (LifecycleFixture().table.leaseManager, LifecycleFixture().table.leaseManager)
    val k = keeper
    k.hold(a, 1L, () => false)
    k.hold(b, 2L, () => false)
    k.sweep(_.dir == a.dir)
    assert(a.all().isEmpty && b.all().map(_._2.snapshotId) === Seq(2L) && k.heldCount === 1)
    k.sweep()
    assert(b.all().isEmpty && k.heldCount === 0)
  }

  test("a lease that cannot be written is no lease, and no failure") {
    val f = LifecycleFixture()
    // a file where the lease directory would go
    f.table.fileIO.writeBytes(new org.apache.hadoop.fs.Path(f.table.path, "lease"), Array.emptyByteArray)
    assert(keeper.tryHold(f.table.leaseManager, 3L, () => true).isEmpty)
  }

  test("a lease of a deleted branch or dropped table is released, never written back") {
    val f = LifecycleFixture()
    val leases = f.table.leaseManager
    val k = keeper
    k.hold(leases, 3L, () => true)
    f.table.fileIO.delete(f.table.path, true) // the table is dropped while a reader holds a lease
    clock += 20000L
    k.renewAll()
    assert(!f.table.fileIO.exists(f.table.path) && k.heldCount === 0)
    assert(k.tryHold(leases, 3L, () => true).isEmpty)
  }

  test("expiration keeps every snapshot from the oldest live lease on; a lapsed lease holds nothing") {
    val f = LifecycleFixture()
    val leases = f.table.leaseManager
    val now = System.currentTimeMillis()
    leases.write("reader", 1, SnapshotLease(3L, now + 60000L, "test"))
    val later = now + 120000L
    assert(new SnapshotExpiration(f.table).expire(RetentionPolicy(1, Int.MaxValue, 0L, 50), later) === 2)
    assert(f.snapshotIds === (3L to 6L))
    assert(f.live(3).nonEmpty)
    // the holder died: its lease lapsed, and the next expiration goes on
    leases.all().foreach { case (p, _) => leases.delete(p) }
    leases.write("reader", 2, SnapshotLease(3L, now - 1, "test"))
    assert(new SnapshotExpiration(f.table).expire(RetentionPolicy(1, Int.MaxValue, 0L, 50), later) === 3)
    assert(f.snapshotIds === Seq(6L))
  }

  test("a lease file is JSON; damaged text is refused naming the file") {
    assert(SnapshotLease.fromJson("""{"snapshotId":4,"expireAtMillis":99,"holder":"h"}""", "p") ===
      SnapshotLease(4L, 99L, "h"))
    val e = intercept[CorruptFileException](SnapshotLease.fromJson("""{"snapshotId":"x"}""", "/t/lease/lease-1-1"))
    assert(e.getMessage === """Corrupt file /t/lease/lease-1-1 at offset 0: expected a number in field 'snapshotId', """ +
      """found {"snapshotId":"x"}""")
  }
}
