package lamina.lookup.compression

import org.scalatest.funsuite.AnyFunSuite

class CompressionGateTest extends AnyFunSuite {
  import CompressionGate.{MissesToSkip, ProbeEvery}

  /** Runs `blocks` blocks whose compression pays per `pays`; returns the indexes of the blocks tried. */
  private def tried(blocks: Int)(pays: Int => Boolean): Seq[Int] = {
    val gate = new CompressionGate
    (0 until blocks).filter { i =>
      val t = gate.shouldTry()
      if (t) gate.record(pays(i))
      t
    }
  }

  test("every block is tried while compression pays") {
    assert(tried(100)(_ => true) == (0 until 100))
  }

  test("after a run of misses only every ProbeEvery-th block is tried") {
    val t = tried(MissesToSkip + 3 * ProbeEvery)(_ => false)
    assert(t == (0 until MissesToSkip) ++ (1 to 3).map(k => MissesToSkip - 1 + k * ProbeEvery))
  }

  test("a probe that pays brings back a try per block") {
    // blocks turn compressible at 10: the next probe finds out, and every block after it is tried
    val t = tried(80)(_ >= 10)
    val probe = MissesToSkip - 1 + ProbeEvery
    assert(t.takeWhile(_ < probe) == (0 until MissesToSkip))
    assert(t.dropWhile(_ < probe) == (probe until 80))
  }

  test("a miss between payments does not stop tries") {
    assert(tried(50)(i => i % MissesToSkip != 0) == (0 until 50))
  }
}
