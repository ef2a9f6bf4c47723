package lamina.table.catalog.hive

import java.util.concurrent.{LinkedBlockingDeque, Semaphore}

import org.apache.hadoop.hive.conf.HiveConf
import org.apache.hadoop.hive.metastore.{IMetaStoreClient, RetryingMetaStoreClient}

/** At most `size` clients of the Hive metastore `conf` names (`hive.metastore.uris`, or an embedded
 *  metastore when it is empty), opened on first use and kept until `close()`. A client is used by one
 *  call of [[run]] at a time (Hive's client is not thread-safe); one that failed is closed, not reused,
 *  so a metastore that comes back is reconnected to.
 *
 *  `conf` is the metastore's configuration as plain entries, so that a commit lock can carry it to
 *  where it runs; `clientClass` is `metastore.client.class`; `open` connects a client otherwise. */
final class HiveClients(open: () => IMetaStoreClient, size: Int) extends AutoCloseable {
  def this(conf: Map[String, String], clientClass: String, size: Int) =
    this(() => HiveClients.connect(conf, clientClass), size)

  private val idle = new LinkedBlockingDeque[IMetaStoreClient]()
  private val permits = new Semaphore(size, true)
  @volatile private var closed = false

  def run[T](f: IMetaStoreClient => T): T = {
    permits.acquire()
    try {
      if (closed) throw new IllegalStateException("The Hive metastore clients are closed")
      val c = Option(idle.pollFirst()).getOrElse(open())
      val result =
        try f(c)
        catch {
          case e: org.apache.thrift.TException if !HiveClients.isAnswer(e) =>
            c.close()
            throw e
        }
      idle.addFirst(c)
      result
    } finally permits.release()
  }

  override def close(): Unit = {
    closed = true
    Iterator.continually(idle.pollFirst()).takeWhile(_ != null).foreach(_.close())
  }
}

object HiveClients {

  /** A client of the metastore `conf` names, through Hive's retrying proxy (it reconnects and retries
   *  a call that lost its connection, as `hive.metastore.failure.retries` says). */
  def connect(conf: Map[String, String], clientClass: String): IMetaStoreClient = {
    val hiveConf = toHiveConf(conf)
    RetryingMetaStoreClient.getProxy(hiveConf, Array[Class[_]](classOf[HiveConf]), Array[AnyRef](hiveConf),
      clientClass)
  }

  def toHiveConf(conf: Map[String, String]): HiveConf = {
    val c = new HiveConf(new org.apache.hadoop.conf.Configuration(false), classOf[HiveConf])
    conf.foreach { case (k, v) => c.set(k, v) }
    c
  }

  /** The metastore's answers to a well-formed call (no such object, already exists, ...), after which the
   *  client is still good; anything else (a transport or server failure) retires it. */
  def isAnswer(e: org.apache.thrift.TException): Boolean = e match {
    case _: org.apache.hadoop.hive.metastore.api.NoSuchObjectException |
        _: org.apache.hadoop.hive.metastore.api.AlreadyExistsException |
        _: org.apache.hadoop.hive.metastore.api.InvalidOperationException |
        _: org.apache.hadoop.hive.metastore.api.InvalidObjectException |
        _: org.apache.hadoop.hive.metastore.api.UnknownDBException |
        _: org.apache.hadoop.hive.metastore.api.NoSuchLockException => true
    case _ => false
  }
}
