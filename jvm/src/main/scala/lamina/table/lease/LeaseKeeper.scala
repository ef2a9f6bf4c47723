package lamina.table.lease

import java.util.UUID
import java.util.concurrent.{ConcurrentHashMap, Executors, ScheduledExecutorService, ThreadFactory, TimeUnit}

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.slf4j.LoggerFactory

/** Renews the leases of this JVM's running readers from one daemon thread: every `renewEveryMillis`
 *  each held lease gets a new expiry `durationMillis` ahead. A lease lasts while its `alive` check
 *  holds (the reader's query runs): once it fails, or [[Held.release]] is called, the lease's file is
 *  deleted (at the next round, or at once by [[sweep]], which expiration in this JVM calls first); if
 *  the JVM dies, the lease lapses by itself when its expiry passes. */
final class LeaseKeeper(val durationMillis: Long, val renewEveryMillis: Long,
    clock: () => Long = () =>
      System.currentTimeMillis()) {
  require(renewEveryMillis > 0 && renewEveryMillis < durationMillis, "leases must be renewed before they lapse")

  private val log = LoggerFactory.getLogger(getClass)
  private val held = ConcurrentHashMap.newKeySet[Held]()
  private lazy val timer: ScheduledExecutorService = {
    val s = Executors.newSingleThreadScheduledExecutor(new ThreadFactory {
      override def newThread(r: Runnable): Thread = {
        val t = new Thread(r, "lamina-lease-keeper")
        t.setDaemon(true)
        t
      }
    })
    s.scheduleWithFixedDelay(() => renewAll(), renewEveryMillis, renewEveryMillis, TimeUnit.MILLISECONDS)
    s
  }

  /** One lease this JVM holds. */
  final class Held private[LeaseKeeper] (val manager: LeaseManager, val snapshotId: Long, alive: () => Boolean) {
    private val id = UUID.randomUUID().toString
    private var n = 0L
    private var file: Option[Path] = None

    private[LeaseKeeper] def ended: Boolean = !alive()

    /** Whether the lease is written and renewed (not yet released). */
    def isHeld: Boolean = synchronized(n >= 0)

    /** Writes the lease's next file, then deletes the previous one; releases the lease when its branch
     *  or table is gone. */
    private[LeaseKeeper] def renew(): Unit = synchronized {
      if (n < 0) return
      n += 1
      manager.write(id, n, SnapshotLease(snapshotId, clock() + durationMillis, LeaseKeeper.Holder)) match {
        case Some(next) =>
          file.foreach(manager.delete)
          file = Some(next)
        case None => release()
      }
    }

    def release(): Unit = synchronized {
      held.remove(this)
      n = -1
      file.foreach(manager.delete)
      file = None
    }
  }

  /** Takes a lease on `snapshotId`, written before this returns, renewed while `alive` holds. */
  def hold(manager: LeaseManager, snapshotId: Long, alive: () => Boolean): Held = {
    val h = new Held(manager, snapshotId, alive)
    h.renew()
    if (h.isHeld) held.add(h) // else its branch or table is gone
    timer
    h
  }

  /** [[hold]], or None when the lease cannot be written (a warehouse this process may read but not
   *  write; a branch or table deleted meanwhile): a reader never fails for want of a lease; it reads unprotected, as Paimon's readers do. */
  def tryHold(manager: LeaseManager, snapshotId: Long, alive: () => Boolean): Option[Held] =
    try Some(hold(manager, snapshotId, alive)).filter(_.isHeld)
    catch {
      case NonFatal(e) =>
        log.warn(s"Could not write a lease on snapshot $snapshotId in ${manager.dir}; reading without one", e)
        None
    }

  /** One round of the keeper's thread (public for tests): releases ended leases, renews the others. */
  def renewAll(): Unit = {
    sweep()
    held.asScala.toSeq.foreach { h =>
      try h.renew()
      catch { case NonFatal(e) => log.warn(s"Could not renew the lease on snapshot ${h.snapshotId} in ${h.manager.dir}", e) }
    }
  }

  /** Releases the leases whose readers ended; of the tables `of` takes (by their lease manager) only:
   *  a table's expiration must not wait on another table's storage (an unreachable S3 server retries
   *  for minutes). */
  def sweep(of: LeaseManager => Boolean = _ => true): Unit = held.asScala.toSeq.foreach { h =>
    if (of(h.manager) && h.ended)
      try h.release()
      catch { case NonFatal(e) => log.warn(s"Could not release the lease on snapshot ${h.snapshotId} in ${h.manager.dir}", e) }
  }

  def heldCount: Int = held.size
}

object LeaseKeeper {

  /** The process holding a lease, for people reading the file. */
  val Holder: String = java.lang.management.ManagementFactory.getRuntimeMXBean.getName

  /** This JVM's keeper: leases of 2 minutes, renewed every 20 seconds. */
  lazy val Default: LeaseKeeper = new LeaseKeeper(120000L, 20000L)
}
