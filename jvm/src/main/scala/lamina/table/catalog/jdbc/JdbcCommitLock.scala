package lamina.table.catalog.jdbc

import java.sql.{Connection, SQLException}

import lamina.errors.CommitLockTimeoutException
import lamina.table.commit.CommitLock

/** Paimon's JDBC catalog lock (`lock.enabled=true`): a row of `paimon_distributed_locks` whose
 *  `lock_id` is `<catalog-key>.<db>.<table>`. Inserting it acquires the lock (its primary key lets one
 *  writer in); deleting it releases. Each attempt first deletes the row when its holder has kept it
 *  longer than its `expire_time_seconds` (the holder's `lock-acquire-timeout`, as Paimon sets it), so a
 *  writer that died holding the lock blocks others for at most that long. Attempts are retried with a
 *  sleep doubling from 50 ms up to `maxSleepMillis`, until `acquireTimeoutMillis`. A database that
 *  cannot be asked (the server unreachable) fails the commit at once with a [[JdbcFailure]] naming the
 *  table and catalog `catalog`, without running the body: nothing is committed.
 *
 *  Serializable: connections are opened where the lock is used, one for the whole `runWithLock`, and
 *  closed after it. */
final case class JdbcCommitLock(catalog: String, uri: String, driverProperties: Map[String, String], catalogKey: String,
    acquireTimeoutMillis: Long, maxSleepMillis: Long)
  extends CommitLock {

  def runWithLock[T](table: String)(body: => T): T = {
    val id = s"$catalogKey.$table"
    val connections = new JdbcConnections(uri, driverProperties, 1)
    try {
      try acquire(connections, id, table)
      catch {
        case e: SQLException =>
          throw JdbcFailure(catalog, uri, s"take the commit lock of table $table", e, "; nothing was committed")
      }
      try body
      finally
        try connections.run(Statements.update(_, JdbcCommitLock.Release, id))
        catch { case _: SQLException => } // the row expires; the body's outcome stands
    } finally connections.close()
  }

  private def acquire(connections: JdbcConnections, id: String, table: String): Unit = {
    val start = System.currentTimeMillis()
    var sleep = 50L
    while (!tryAcquire(connections, id)) {
      val waited = System.currentTimeMillis() - start
      if (waited >= acquireTimeoutMillis) {
        val holder = connections.run(c => JdbcCommitLock.holder(c, id))
        throw new CommitLockTimeoutException(s"Could not acquire the commit lock of table $table within " +
          s"${acquireTimeoutMillis} ms (lock-acquire-timeout): lock '$id' in ${JdbcCommitLock.Table} is held" +
          holder.map { case (at, expire) => s" since $at (it expires $expire s after that)" }.getOrElse(
            " by a writer that has just released it") + "; nothing was committed")
      }
      Thread.sleep(math.min(sleep, math.max(1L, acquireTimeoutMillis - waited)))
      sleep = math.min(sleep * 2, maxSleepMillis)
    }
  }

  private def tryAcquire(connections: JdbcConnections, id: String): Boolean = connections.run { c =>
    Statements.update(c, JdbcCommitLock.expireSql(uri), id)
    try Statements.update(c, JdbcCommitLock.Acquire, id, (acquireTimeoutMillis / 1000).toString) > 0
    catch { case _: SQLException => false } // the primary key: another writer holds it
  }
}

object JdbcCommitLock {
  val Table = "paimon_distributed_locks"

  /** Paimon's lock table; `lock_id` up to Paimon's default `lock-key-max-length` of 255. */
  val Create: String = s"CREATE TABLE $Table (lock_id VARCHAR(255) NOT NULL, " +
    "acquired_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL, expire_time_seconds BIGINT DEFAULT 0 NOT NULL, " +
    "PRIMARY KEY (lock_id))"
  val Acquire = s"INSERT INTO $Table (lock_id, expire_time_seconds) VALUES (?, CAST(? AS BIGINT))"
  val Release = s"DELETE FROM $Table WHERE lock_id = ?"
  private val Holder = s"SELECT acquired_at, expire_time_seconds FROM $Table WHERE lock_id = ?"

  /** Deletes the row of `lock_id = ?` when its holder has kept it too long, in the URL's SQL dialect. */
  def expireSql(uri: String): String = {
    val age =
      if (uri.startsWith("jdbc:sqlite:")) "strftime('%s', 'now') - strftime('%s', acquired_at)"
      else if (uri.startsWith("jdbc:postgresql:")) "EXTRACT(EPOCH FROM AGE(NOW(), acquired_at))"
      else "TIMESTAMPDIFF(SECOND, acquired_at, NOW())" // MySQL
    s"DELETE FROM $Table WHERE $age > expire_time_seconds AND lock_id = ?"
  }

  private def holder(c: Connection, id: String): Option[(String, Long)] =
    Statements.query(c, Holder, id)(rs => rs.getString(1) -> rs.getLong(2)).headOption
}
