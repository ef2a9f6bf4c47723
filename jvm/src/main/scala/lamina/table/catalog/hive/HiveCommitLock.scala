package lamina.table.catalog.hive

import java.net.InetAddress
import java.util.UUID

import scala.jdk.CollectionConverters._
import scala.util.Try
import scala.util.control.NonFatal

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

import lamina.errors.{CommitLockTimeoutException, StorageException}
import lamina.table.commit.CommitLock

/** Paimon's Hive catalog lock (`lock.enabled=true`): an exclusive table lock of the metastore's lock
 *  manager (`lock`, then `checkLock` until it is acquired, `unlock`), taken without a transaction. A
 *  lock still waiting at `acquireTimeoutMillis` is given up (unlocked) and reported naming the table
 *  and the holder; the body never ran. Any other failure to take it (the metastore unreachable or failing)
 *  is reported as a `StorageException` naming the table, after unlocking what the request may have
 *  queued (each request is tagged with its own agent info to find it). Released on every path after it
 *  is acquired; a holder that dies is freed by the metastore's lock timeout (`hive.txn.timeout`).
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

  def runWithLock[T](table: String)(body: => T): T =
    runWithLockOn(HiveCommitLock.clients(conf, clientClass), table)(body)

  private[hive] def runWithLockOn[T](clients: HiveClients, table: String)(body: => T): T = {
    val (db, name) = HiveMetastore.split(table)
    val agent = s"lamina-commit-${UUID.randomUUID()}"
    val id =
      try clients.run(acquire(_, db, name, agent))
      catch {
        case e: CommitLockTimeoutException => throw e
        case NonFatal(e) =>
          // the request may have been queued before the metastore failed: a lock left waiting would
          // hold up every other writer until the metastore's lock timeout
          Try(clients.run(c => ownLocks(c, db, name, agent).foreach(c.unlock)))
          throw new StorageException("take the commit lock of table", s"$db.$name",
            s"the Hive metastore failed: ${HiveMetastore.rootMessage(e)}; nothing was committed", e)
      }
    try body
    finally Try(clients.run(_.unlock(id))) // the metastore's lock timeout frees it otherwise
  }

  private def acquire(client: IMetaStoreClient, db: String, table: String, agent: String): Long = {
    val component = new LockComponent(LockType.EXCLUSIVE, LockLevel.TABLE, db)
    component.setTablename(table)
    component.setOperationType(DataOperationType.NO_TXN) // a lock outside any transaction
    val request = new LockRequest(java.util.Collections.singletonList(component), System.getProperty("user.name"),
      Try(InetAddress.getLocalHost.getHostName).getOrElse("localhost"))
    request.setAgentInfo(agent)
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

  /** The locks of `db.table` that the request tagged `agent` queued. */
  private def ownLocks(client: IMetaStoreClient, db: String, table: String, agent: String): Seq[Long] = {
    val request = new ShowLocksRequest()
    request.setDbname(db)
    request.setTablename(table)
    client.showLocks(request).getLocks.asScala.filter(_.getAgentInfo == agent).map(_.getLockid).toSeq.distinct
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
