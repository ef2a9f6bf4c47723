package lamina.table.commit

/** A lock a metastore may hold around each snapshot commit of its tables, for file systems whose
 *  atomic create of the snapshot file is not enough on its own (Paimon's catalog lock). Serializable:
 *  it travels with its table; an implementation opens what it needs where it runs.
 *
 *  Contract: `runWithLock(table)(body)` runs `body` holding the lock of `table` (`db.t`, branches
 *  share their table's lock) and releases it afterwards. When the lock cannot be had it throws without
 *  running `body`: `CommitLockTimeoutException` when it was not granted in time, another exception
 *  (a `StorageException` naming the table) when the lock service failed; either way nothing was
 *  committed and the caller deletes what it wrote for the commit. A failure to release after `body` ran is not reported (`body`'s outcome stands); the
 *  implementation's expiry frees the lock then. */
trait CommitLock extends Serializable {
  def runWithLock[T](table: String)(body: => T): T
}

object CommitLock {

  /** No lock: the atomic create of the snapshot file alone decides races (the filesystem metastore). */
  case object Unlocked extends CommitLock {
    def runWithLock[T](table: String)(body: => T): T = body
  }
}
