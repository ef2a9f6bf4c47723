package lamina.table.catalog.jdbc

import java.sql.{
  Connection,
  Driver,
  DriverManager,
  SQLException,
  SQLNonTransientConnectionException,
  SQLRecoverableException,
  SQLTransientConnectionException
}
import java.util.Properties
import java.util.concurrent.{LinkedBlockingDeque, Semaphore}

import org.postgresql.{Driver => PostgresDriver}
import org.sqlite.{JDBC => SqliteDriver}

/** At most `size` connections to `uri`, opened on first use and kept open until `close()`. Each call
 *  of [[run]] holds one connection, in auto-commit mode, for the duration of the call.
 *
 *  The SQLite and PostgreSQL drivers are called directly rather than found by `DriverManager`, which
 *  only sees drivers on the system class path (not jars Spark adds to a session); other URLs (MySQL)
 *  go through `DriverManager`. SQLite connections use WAL journaling (readers do not block the
 *  writer) and wait up to [[SqliteBusyTimeoutMillis]] for another writer's lock instead of failing
 *  with SQLITE_BUSY.
 *
 *  A call on a pooled connection that fails with a connection error (mostly a connection the server
 *  dropped since its last use: it restarted, or closed idle sessions) runs once more on a new
 *  connection, as Paimon's client pool does, so that the first statement after a restart does not
 *  fail; a new connection's failure is the caller's. The metastore's calls bear a repeat: queries and
 *  deletes are idempotent, inserts guarded by primary keys (a server that ran an insert and died
 *  before answering is the one case where the repeat sees the row, and reports it as existing). */
final class JdbcConnections(uri: String, properties: Map[String, String], size: Int) extends AutoCloseable {
  private val idle = new LinkedBlockingDeque[Connection]()
  private val permits = new Semaphore(size, true)
  @volatile private var closed = false

  def isSqlite: Boolean = uri.startsWith("jdbc:sqlite:")

  def run[T](f: Connection => T): T = {
    permits.acquire()
    try {
      if (closed) throw new SQLException(s"The connections to $uri are closed")
      Option(idle.pollFirst()).filterNot(_.isClosed) match {
        case None => use(connect(), f)
        case Some(pooled) =>
          try use(pooled, f)
          catch {
            case e: SQLException if JdbcConnections.isConnectionFailure(e) =>
              idle.remove(pooled)
              closeQuietly(pooled)
              try use(connect(), f)
              catch { case again: SQLException => again.addSuppressed(e); throw again }
          }
      }
    } finally permits.release()
  }

  private def use[T](c: Connection, f: Connection => T): T =
    try f(c)
    finally if (!c.isClosed) idle.addFirst(c)

  private def closeQuietly(c: Connection): Unit =
    try c.close()
    catch { case _: SQLException => }

  private def connect(): Connection = {
    val props = new Properties()
    properties.foreach { case (k, v) => props.setProperty(k, v) }
    val driver: Option[Driver] =
      if (isSqlite) Some(new SqliteDriver())
      else if (uri.startsWith("jdbc:postgresql:")) Some(new PostgresDriver())
      else None
    val c = driver.map(_.connect(uri, props)).getOrElse(DriverManager.getConnection(uri, props))
    if (c == null) throw new SQLException(s"No JDBC driver accepts $uri")
    if (isSqlite) {
      val s = c.createStatement()
      try {
        s.execute(s"PRAGMA busy_timeout = ${JdbcConnections.SqliteBusyTimeoutMillis}")
        s.execute("PRAGMA journal_mode = WAL")
      } finally s.close()
    }
    c.setAutoCommit(true)
    c
  }

  override def close(): Unit = {
    closed = true
    Iterator.continually(idle.pollFirst()).takeWhile(_ != null).foreach(closeQuietly)
  }
}

object JdbcConnections {
  val SqliteBusyTimeoutMillis = 30000

  /** A connection that is no longer usable: SQL's connection-exception class (SQLState 08xxx, which
   *  PostgreSQL's driver reports for a dropped socket) or the JDBC classes saying so. */
  def isConnectionFailure(e: SQLException): Boolean =
    Option(e.getSQLState).exists(_.startsWith("08")) || e.isInstanceOf[SQLNonTransientConnectionException] ||
      e.isInstanceOf[SQLTransientConnectionException] || e.isInstanceOf[SQLRecoverableException]
}
