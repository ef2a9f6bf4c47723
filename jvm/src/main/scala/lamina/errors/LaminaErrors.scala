package lamina.errors

/** Root of every error Lamina raises on purpose. The taxonomy:
 *  - [[BadInputException]]: the user asked for something invalid; the message names the table,
 *    column, option or file. Nothing committed has changed.
 *  - [[CorruptFileException]]: a file's bytes are not what its format says; names path, offset,
 *    expected and actual value. Never read as data.
 *  - [[CommitConflictException]]: another writer won; retryable from the new snapshot.
 *  - [[CommitStateUnknownException]]: the commit may or may not have landed (for example an IO error
 *    after the snapshot file was written); the caller must check before retrying.
 *  - [[PostCommitFailureException]]: the write IS committed, but a step that must follow it (the
 *    compaction that makes a deletion-vector or first-row table's new rows visible) failed. Not a
 *    conflict and not retryable: running the write again applies it twice. The message says what
 *    completes the step (`CALL sys.compact`).
 *  - [[StorageException]]: the file system refused an operation (read-only, not a directory, name
 *    too long, permission); names the operation, the path and the reason. Nothing committed has changed.
 */
abstract class LaminaException(message: String, cause: Throwable) extends RuntimeException(message, cause)

class BadInputException(message: String, cause: Throwable = null) extends LaminaException(message, cause)

object BadInputException {

  /** A value that option `key` cannot take, and why; names the table when the option is one of its own
   *  (CREATE TABLE, ALTER TABLE, an option a read or write sets for it). */
  def invalidOption(key: String, value: String, why: String, table: Option[String] = None): BadInputException =
    new BadInputException(s"Invalid value '$value' for option '$key'${table.fold("")(t => s" of table $t")}: $why")
}

class NotFoundException(message: String, cause: Throwable = null) extends BadInputException(message, cause)

class AlreadyExistsException(message: String, cause: Throwable = null) extends BadInputException(message, cause)

/** A file that does not hold what it must; `offset` is where, or negative when the decoder that
 *  failed does not say. */
class CorruptFileException(
    val path: String,
    val offset: Long,
    val expected: String,
    val actual: String,
    detail: String = "",
    cause: Throwable = null)
  extends LaminaException(
    s"Corrupt file $path${if (offset >= 0) s" at offset $offset" else ""}: expected $expected, found $actual" +
      (if (detail.isEmpty) "" else s" ($detail)"),
    cause)

class CommitConflictException(message: String, cause: Throwable = null) extends LaminaException(message, cause)

/** A commit lock not acquired in time: nothing was committed, and retrying later may succeed. */
class CommitLockTimeoutException(message: String, cause: Throwable = null) extends CommitConflictException(message, cause)

class CommitStateUnknownException(message: String, cause: Throwable = null) extends LaminaException(message, cause)

/** The write committed snapshot `snapshotId`; what had to follow it failed (see the taxonomy above). */
class PostCommitFailureException(val snapshotId: Long, message: String, cause: Throwable = null)
  extends LaminaException(message, cause)

class StorageException(val operation: String, val path: String, val reason: String, cause: Throwable = null)
  extends LaminaException(s"Could not $operation $path: $reason", cause)

/** A read needs a snapshot that expired: a stream whose next snapshot is gone, or an incremental
 *  read over an expired range. The message names the snapshot and how to go on. */
class SnapshotExpiredException(val snapshotId: Long, message: String) extends NotFoundException(message)
