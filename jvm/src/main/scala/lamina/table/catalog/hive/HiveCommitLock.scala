package lamina.table.catalog.hive

import java.net.InetAddress

import scala.jdk.CollectionConverters._
import scala.util.Try

import org.apache.hadoop.hive.metastore.IMetaStoreClient
import org.apache.hadoop.hive.metastore.api.{
  DataOperationType,
  LockComponent,
  LockLevel,
  LockRequest,
  LockState,
  LockType,
  ShowLocksRequest
}

import lamina.errors.CommitLockTimeoutException
import lamina.table.commit.CommitLock

/** Paimon's Hive catalog lock (`lock.enabled=true`): an exclusive table lock of the metastore's lock
 *  manager (`lock`, then `checkLock` until it is acquired, `unlock`), taken without a transaction. A
 *  lock still waiting at `acquireTimeoutMillis` is given up (unlocked) and reported naming the table
 *  and the holder; the body never ran. Released on every path after it is acquired; a holder that dies
 *  is freed by the metastore's lock timeout (`hive.txn.timeout`).
 *
 *  The metastore must have Hive's transaction tables (created by Hive's schema tool, or by a metastore
 *  running with `hive.in.test`); without them the first lock fails with the metastore's message.
 *
 *  Serializable: it carries the metastore's configuration; where it runs, the locks of one metastore
 *  share a small pool of clients for the life of the JVM (as Paimon's cached client pool), so that a
 *  commit does not pay for a new connection. */
final case class HiveCommitLock(conf: Map[String, String], clientClass: String, acquireTimeoutMillis: Long,
    maxSleepMillis: Long)
  extends CommitLock {

  def runWithLock[T](table: String)(body: => T): T = {
    val (db, name) = HiveMetastore.split(table)
    val clients = HiveCommitLock.clients(conf, clientClass)
    val id = clients.run(acquire(_, db, name))
    try body
    finally Try(clients.run(_.unlock(id))) // the metastore's lock timeout frees it otherwise
  }

  private def acquire(client: IMetaStoreClient, db: String, table: String): Long = {
    val component = new LockComponent(LockType.EXCLUSIVE, LockLevel.TABLE, db)
    component.setTablename(table)
    component.setOperationType(DataOperationType.NO_TXN) // a lock outside any transaction
    val request = new LockRequest(java.util.Collections.singletonList(component), System.getProperty("user.name"),
      Try(InetAddress.getLocalHost.getHostName).getOrElse("localhost"))
    val start = System.currentTimeMillis()
    var response = client.lock(request)
    val id = response.getLockid
    var sleep = 50L
    try {
      while (response.getState == LockState.WAITING && System.currentTimeMillis() - start < acquireTimeoutMillis) {
        Thread.sleep(math.min(sleep, math.max(1L, acquireTimeoutMillis - (System.currentTimeMillis() - start))))
        sleep = math.min(sleep * 2, maxSleepMillis)
        response = client.checkLock(id)
      }
    } finally if (response.getState != LockState.ACQUIRED) Try(client.unlock(id))
    if (response.getState != LockState.ACQUIRED)
      throw new CommitLockTimeoutException(s"Could not acquire the commit lock of table $db.$table within " +
        s"$acquireTimeoutMillis ms (lock-acquire-timeout): the Hive metastore's lock is ${response.getState}" +
        holders(client, db, table, id) + "; nothing was committed")
    id
  }

  /** Who else holds or waits for the table's locks, for the timeout's message. */
  private def holders(client: IMetaStoreClient, db: String, table: String, own: Long): String = {
    val request = new ShowLocksRequest()
    request.setDbname(db)
    request.setTablename(table)
    Try(client.showLocks(request).getLocks.asScala.filter(_.getLockid != own).map { l =>
      s"lock ${l.getLockid} (${l.getState}) of ${l.getUser}@${l.getHostname}"
    }.toSeq).toOption.filter(_.nonEmpty).map(_.mkString(", held by ", ", ", "")).getOrElse("")
  }
}

object HiveCommitLock {
  private val PoolSize = 2
  private val pools = new java.util.concurrent.ConcurrentHashMap[(Map[String, String], String), HiveClients]()

  /** The clients the locks of one metastore share in this JVM. */
  private def clients(conf: Map[String, String], clientClass: String): HiveClients =
    pools.computeIfAbsent((conf, clientClass), k => new HiveClients(k._1, k._2, PoolSize))
}
