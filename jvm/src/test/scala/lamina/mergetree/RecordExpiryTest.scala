package lamina.mergetree

import org.apache.spark.sql.catalyst.InternalRow
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.types.{BigIntType, DataField, IntType, LocalZonedTimestampType, TimestampType, VarCharType}

/** Record-level expiration's options and its test of a record's time, as Paimon's `RecordLevelExpire`. */
class RecordExpiryTest extends AnyFunSuite {
  private val fields = Seq(DataField(0, "id", IntType()), DataField(1, "secs", IntType()), DataField(2, "big", BigIntType()),
    DataField(3, "ts", TimestampType(6)), DataField(4, "ltz", LocalZonedTimestampType(3)),
    DataField(5, "s", VarCharType.string()))
  private val now = 1700000000000L // ms
  private def of(field: String, expire: String = "1 h", pk: Seq[String] = Seq("id")) =
    RecordExpiry.of(Map("record-level.expire-time" -> expire, "record-level.time-field" -> field), fields, pk, "db.t", now)

  test("a record lives expire-time past its time in seconds: INT seconds, BIGINT seconds or milliseconds, timestamps") {
    val secs = of("secs").get
    assert(secs.expireSeconds === 3600 && secs.nowSeconds === now / 1000)
    val nowS = now / 1000
    def row(i: Int, v: Any) = { val r = Array[Any](null, null, null, null, null, null); r(i) = v; InternalRow.fromSeq(r.toSeq) }
    assert(secs.keeps(row(1, (nowS - 3600).toInt)) && !secs.keeps(row(1, (nowS - 3601).toInt)) && secs.keeps(row(1, null)))
    val big = of("big").get
    assert(big.keeps(row(2, nowS - 3600)) && !big.keeps(row(2, nowS - 3601)))
    assert(big.keeps(row(2, (nowS - 3600) * 1000)) && !big.keeps(row(2, (nowS - 3601) * 1000 + 999)))
    val ts = of("ts").get
    assert(ts.keeps(row(3, (nowS - 3600) * 1000000)) && !ts.keeps(row(3, (nowS - 3601) * 1000000 + 999999)))
    assert(of("ltz").get.secondsOf(row(4, 1500L * 1000)) === Some(1L))
    // a file whose oldest time lies before now - expire-time holds an expired record
    assert(secs.expiresFrom(nowS - 3601) && !secs.expiresFrom(nowS - 3600) && ts.expiresFrom((nowS - 3601) * 1000000))
  }

  test("append tables and tables without the option expire nothing; a missing, unknown or untyped field is refused") {
    assert(of("secs", pk = Nil) === None)
    assert(RecordExpiry.of(Map("record-level.time-field" -> "secs"), fields, Seq("id"), "db.t") === None)
    val missing = intercept[BadInputException](
      RecordExpiry.of(Map("record-level.expire-time" -> "1 h"), fields, Seq("id"), "db.t"))
    assert(missing.getMessage === "Table db.t: record-level.expire-time needs record-level.time-field, the column " +
      "whose time the expiration counts from")
    assert(intercept[BadInputException](of("nope")).getMessage ===
      "Invalid value 'nope' for option 'record-level.time-field' of table db.t: the table has no such column")
    assert(intercept[BadInputException](of("s")).getMessage === "Invalid value 's' for option " +
      "'record-level.time-field' of table db.t: its type STRING is not INT, BIGINT, TIMESTAMP or TIMESTAMP_LTZ")
  }
}
