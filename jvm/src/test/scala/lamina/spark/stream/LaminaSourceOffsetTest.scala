package lamina.spark.stream

import org.apache.spark.sql.connector.read.streaming.ReadLimit
import org.scalatest.funsuite.AnyFunSuite

import lamina.table.scan.{StreamLimit, StreamPosition}

class LaminaSourceOffsetTest extends AnyFunSuite {
  test("an offset is Paimon's JSON of snapshot, index and whether the snapshot is read whole") {
    val o = LaminaSourceOffset(StreamPosition(5, 2, full = true))
    assert(o.json() === """{"snapshotId":5,"index":2,"scanSnapshot":true}""")
    assert(LaminaSourceOffset.fromJson(o.json()) === o)
    assert(LaminaSourceOffset.fromJson("""{"scanSnapshot":false,"index":0,"snapshotId":7,"totalSplits":3}""") ===
      LaminaSourceOffset(StreamPosition(7, 0, full = false)))
    val e = intercept[lamina.errors.BadInputException](LaminaSourceOffset.fromJson("""{"snapshotId":1}"""))
    assert(e.getMessage === """Streaming offset '{"snapshotId":1}' has no field 'index'""")
  }

  test("Spark's read limits become a stream limit") {
    assert(LaminaMicroBatchStream.limitOf(ReadLimit.allAvailable()) === StreamLimit.None)
    assert(LaminaMicroBatchStream.limitOf(ReadLimit.maxFiles(3)) === StreamLimit(Some(3), None))
    assert(LaminaMicroBatchStream.limitOf(ReadLimit.compositeLimit(Array(ReadLimit.maxFiles(3), ReadLimit.maxRows(9)))) ===
      StreamLimit(Some(3), Some(9L)))
  }
}
