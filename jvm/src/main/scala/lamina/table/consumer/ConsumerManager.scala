package lamina.table.consumer

import java.io.FileNotFoundException

import org.apache.hadoop.fs.Path

import lamina.errors.BadInputException
import lamina.io.{FileIO, PathNames}
import lamina.table.{FileStoreTable, Identifiers}

/** The consumers of one table (`<table>/consumer/consumer-<id>`, as Paimon and pypaimon keep them): a
 *  streaming reader with a `consumer-id` records its progress here, and snapshot expiration keeps every
 *  snapshot from the smallest `nextSnapshot` on. A consumer whose file was last written more than
 *  `consumer.expiration-time` ago is removed by expiration first. */
final class ConsumerManager(fileIO: FileIO, tablePath: Path, tableName: String) {
  private def dir = PathNames.child(tablePath, "consumer")

  def path(id: String): Path = PathNames.child(dir, ConsumerManager.Prefix + ConsumerManager.checkId(id, tableName), "consumer")

  def get(id: String): Option[Consumer] = {
    val p = path(id)
    try Some(Consumer.fromJson(fileIO.readUtf8(p), p.toString))
    catch { case _: FileNotFoundException => None }
  }

  def reset(id: String, consumer: Consumer): Unit = fileIO.overwriteUtf8(path(id), consumer.toJson)

  def delete(id: String): Unit = fileIO.deleteQuietly(path(id))

  /** Every consumer, by id, with its file's modification time. */
  def all(): Seq[(String, Consumer, Long)] =
    if (!fileIO.exists(dir)) Seq.empty
    else fileIO.list(dir).filter(_.getPath.getName.startsWith(ConsumerManager.Prefix)).flatMap { st =>
      val id = st.getPath.getName.stripPrefix(ConsumerManager.Prefix)
      get(id).map(c => (id, c, st.getModificationTime))
    }.sortBy(_._1)

  def minNextSnapshot(): Option[Long] = all().map(_._2.nextSnapshot).minOption

  /** Removes the consumers last written before `olderThanMillis`; their ids. */
  def expire(olderThanMillis: Long): Seq[String] = {
    val old = all().filter(_._3 < olderThanMillis).map(_._1)
    old.foreach(delete)
    old
  }
}

object ConsumerManager {
  val Prefix = "consumer-"

  def of(table: FileStoreTable): ConsumerManager = new ConsumerManager(table.fileIO, table.path, table.name)

  /** A consumer id is one file-name segment. */
  def checkId(id: String, table: String): String =
    try Identifiers.check(id, "consumer", Prefix)
    catch { case e: BadInputException => throw new BadInputException(s"${e.getMessage} (table $table)", e) }
}
