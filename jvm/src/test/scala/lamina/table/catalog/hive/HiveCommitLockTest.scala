package lamina.table.catalog.hive

import java.lang.reflect.{InvocationHandler, Method, Proxy}

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.apache.hadoop.hive.metastore.IMetaStoreClient
import org.apache.hadoop.hive.metastore.api.{
  LockComponent,
  LockLevel,
  LockRequest,
  LockResponse,
  LockState,
  LockType,
  ShowLocksResponse,
  ShowLocksResponseElement
}
import org.apache.thrift.TApplicationException
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.{CommitLockTimeoutException, StorageException}

class HiveCommitLockTest extends AnyFunSuite {

  private val lock = HiveCommitLock(Map.empty, "unused", acquireTimeoutMillis = 300, maxSleepMillis = 50)

  test("a lock request the metastore queued and then failed on is unlocked: the next commit is not held up") {
    val metastore = new LockManager(failLock = 1)
    val clients = new HiveClients(() => metastore.client(), 1)
    var ran = false
    val e = intercept[StorageException](lock.runWithLockOn(clients, "d.t") { ran = true })
    assert(!ran)
    assert(e.getMessage == "Could not take the commit lock of table d.t: the Hive metastore failed: " +
      "Internal error processing lock; nothing was committed")
    assert(metastore.locks.isEmpty, "the queued request was unlocked")
    assert(lock.runWithLockOn(clients, "d.t")("committed") == "committed")
    assert(metastore.locks.isEmpty)
  }

  test("a lock held by another writer times out naming it; the waiting request is given up") {
    val metastore = new LockManager(failLock = 0)
    val clients = new HiveClients(() => metastore.client(), 1)
    val other = metastore.client().lock(request("d", "t", "other-writer"))
    var ran = false
    val e = intercept[CommitLockTimeoutException](lock.runWithLockOn(clients, "d.t") { ran = true })
    assert(!ran)
    assert(e.getMessage.startsWith("Could not acquire the commit lock of table d.t within 300 ms"), e.getMessage)
    assert(e.getMessage.contains(s"held by lock ${other.getLockid} (ACQUIRED)"), e.getMessage)
    assert(metastore.locks.keySet == Set(other.getLockid))
  }

  private def request(db: String, table: String, agent: String): LockRequest = {
    val component = new LockComponent(LockType.EXCLUSIVE, LockLevel.TABLE, db)
    component.setTablename(table)
    val r = new LockRequest(java.util.Collections.singletonList(component), "u", "h")
    r.setAgentInfo(agent)
    r
  }
}

/** A metastore's lock manager in memory: exclusive table locks granted in request order; the first
 *  `failLock` lock calls queue their request and then fail, as a metastore whose database failed after
 *  the insert does. */
final class LockManager(var failLock: Int) {
  final case class Held(db: String, table: String, agent: String)
  val locks: mutable.LinkedHashMap[Long, Held] = mutable.LinkedHashMap.empty
  private var next = 1L

  private def state(id: Long): LockState = {
    val h = locks(id)
    if (locks.find { case (_, o) => o.db == h.db && o.table == h.table }.map(_._1).contains(id)) LockState.ACQUIRED
    else LockState.WAITING
  }

  def client(): IMetaStoreClient = Proxy.newProxyInstance(getClass.getClassLoader, Array(classOf[IMetaStoreClient]),
    new InvocationHandler {
      def invoke(proxy: Any, m: Method, args: Array[AnyRef]): AnyRef = LockManager.this.synchronized {
        m.getName match {
          case "lock" =>
            val r = args(0).asInstanceOf[LockRequest]
            val c = r.getComponent.get(0)
            val id = next
            next += 1
            locks(id) = Held(c.getDbname, c.getTablename, r.getAgentInfo)
            if (failLock > 0) {
              failLock -= 1
              throw new TApplicationException(TApplicationException.INTERNAL_ERROR, "Internal error processing lock")
            }
            new LockResponse(id, state(id))
          case "checkLock" =>
            val id = args(0).asInstanceOf[java.lang.Long].longValue
            new LockResponse(id, state(id))
          case "unlock" =>
            locks.remove(args(0).asInstanceOf[java.lang.Long].longValue)
            null
          case "showLocks" =>
            new ShowLocksResponse(locks.toSeq.map { case (id, h) =>
              val e = new ShowLocksResponseElement(id, h.db, state(id), LockType.EXCLUSIVE, 0L, "u", "h")
              e.setTablename(h.table)
              e.setAgentInfo(h.agent)
              e
            }.asJava)
          case "close" => null
          case other => throw new UnsupportedOperationException(other)
        }
      }
    }).asInstanceOf[IMetaStoreClient]
}
