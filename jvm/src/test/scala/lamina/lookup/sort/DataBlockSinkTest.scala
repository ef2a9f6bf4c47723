package lamina.lookup.sort

import org.scalatest.funsuite.AnyFunSuite

class DataBlockSinkTest extends AnyFunSuite {

  test("blocks in flight: as many as the byte budget holds, between 2 and 16") {
    val default = 64 * 1024 + 16 * 1024 // a 64 KiB page's block capacity
    assert(DataBlockSink.inFlight(default) == DataBlockSink.MaxInFlight)
    assert(DataBlockSink.inFlight(DataBlockSink.MinBackgroundBlockSize) == DataBlockSink.MaxInFlight)
    assert(DataBlockSink.inFlight(512 * 1024) == 4)
    assert(DataBlockSink.inFlight(1 << 20) == 2)
    assert(DataBlockSink.inFlight(1 << 30) == 2)
    (1 to 1000).map(_ * 4099).foreach { capacity =>
      val n = DataBlockSink.inFlight(capacity)
      assert(n >= 2 && n <= DataBlockSink.MaxInFlight)
      assert(n == 2 || n.toLong * capacity <= DataBlockSink.InFlightBytes, s"capacity $capacity: $n blocks")
    }
  }
}
