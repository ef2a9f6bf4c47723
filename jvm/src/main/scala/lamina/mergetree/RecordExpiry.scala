package lamina.mergetree

import org.apache.spark.sql.catalyst.InternalRow

import lamina.errors.BadInputException
import lamina.table.options.CoreOptions
import lamina.types.{BigIntType, DataField, DataType, IntType, LocalZonedTimestampType, TimestampType}

/** Paimon's record-level expiration (`record-level.expire-time` over `record-level.time-field`) of a
 *  primary-key table: compaction drops each record read from the files it rewrites whose time, in
 *  epoch seconds, plus `expireSeconds` lies before now; a record whose time is NULL stays. Reads do
 *  not filter (as in Paimon). `ordinal` is the time field's position in the table's (current) rows;
 *  `nowSeconds` the time the compaction started.
 *  Serializable: built on the driver, used in compaction tasks. */
final case class RecordExpiry(ordinal: Int, timeType: DataType, expireSeconds: Long, nowSeconds: Long) {

  /** The time of `row` in epoch seconds: INT as seconds, BIGINT as seconds or, from 10^12 on,
   *  milliseconds, a timestamp's milliseconds divided by 1000 (as Paimon's `RecordLevelExpire`). */
  def secondsOf(row: InternalRow): Option[Long] =
    if (row.isNullAt(ordinal)) None
    else Some(RecordExpiry.seconds(timeType,
        timeType match {
          case _: IntType => row.getInt(ordinal).toLong
          case _ => row.getLong(ordinal)
        }))

  /** Whether compaction keeps `row`. */
  def keeps(row: InternalRow): Boolean = secondsOf(row).forall(t => nowSeconds <= t + expireSeconds)

  /** Whether a file whose oldest time (in the field's own units, from its statistics) is `min` holds
   *  an expired record. */
  def expiresFrom(min: Long): Boolean = nowSeconds - expireSeconds > RecordExpiry.seconds(timeType, min)
}

object RecordExpiry {

  private def seconds(t: DataType, v: Long): Long = t match {
    case _: BigIntType => if (v >= 1000000000000L) v / 1000L else v
    case _: TimestampType | _: LocalZonedTimestampType => Math.floorDiv(v, 1000L) / 1000L // Catalyst's microseconds
    case _ => v
  }

  /** The expiration `options` ask for on a table with `fields` and `primaryKeys`; None without
   *  `record-level.expire-time`, or on a table without a primary key (Paimon expires records in
   *  primary-key tables' compaction only). A time field missing, unknown or of another type is a
   *  [[BadInputException]] naming the table. */
  def of(options: Map[String, String], fields: Seq[DataField], primaryKeys: Seq[String], table: String,
      nowMillis: Long = System.currentTimeMillis()): Option[RecordExpiry] =
    CoreOptions.RecordLevelExpireTime.get(options).filter(_ => primaryKeys.nonEmpty).map { millis =>
      val name = CoreOptions.RecordLevelTimeField.get(options).filter(_.trim.nonEmpty).getOrElse(
        throw new BadInputException(s"Table $table: record-level.expire-time needs record-level.time-field, " +
          "the column whose time the expiration counts from"))
      val i = fields.indexWhere(_.name == name)
      if (i < 0) throw BadInputException.invalidOption(CoreOptions.RecordLevelTimeField.key, name,
        "the table has no such column", Some(table))
      fields(i).dataType match {
        case t @ (_: IntType | _: BigIntType | _: TimestampType | _: LocalZonedTimestampType) =>
          RecordExpiry(i, t, millis / 1000L, nowMillis / 1000L)
        case other => throw BadInputException.invalidOption(CoreOptions.RecordLevelTimeField.key, name,
            s"its type ${other.asSQLString} is not INT, BIGINT, TIMESTAMP or TIMESTAMP_LTZ", Some(table))
      }
    }
}
