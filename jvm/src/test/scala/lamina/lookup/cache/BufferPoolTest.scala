package lamina.lookup.cache

import org.scalatest.funsuite.AnyFunSuite

class BufferPoolTest extends AnyFunSuite {

  test("a given array is taken again for a page of about its size, at a new generation") {
    val pool = new BufferPool(1 << 20)
    val first = pool.take(1000)
    assert(first.length == 1000 && first.bytes.length == BufferPool.capacityFor(1000))
    assert(first.isCurrent)
    pool.give(first)
    assert(pool.freeCount == 1 && pool.heldBytes == first.bytes.length)
    assert(first.isCurrent, "an array waiting in the pool still holds its page")
    val second = pool.take(990)
    assert((second.bytes eq first.bytes))
    assert(second.length == 990 && second.isCurrent)
    assert(!first.isCurrent, "the earlier page is no longer current once its array is reused")
    assert(pool.reuseCount == 1 && pool.freeCount == 0 && pool.heldBytes == 0)
    pool.give(second)
    assert((pool.take(1000).bytes eq first.bytes), "taken again")
    assert(!second.isCurrent)
  }

  test("arrays that do not fit closely are not reused: too small, or over an eighth too large") {
    val pool = new BufferPool(1 << 20)
    val p = pool.take(1000)
    pool.give(p)
    assert(!(pool.take(p.bytes.length + 1).bytes eq p.bytes), "too small")
    assert(!(pool.take(500).bytes eq p.bytes), "much too large")
    assert((pool.take(1000).bytes eq p.bytes))
  }

  test("the smallest array that fits is taken") {
    val pool = new BufferPool(1 << 20)
    val a = pool.take(1100)
    val b = pool.take(1000)
    pool.give(a)
    pool.give(b)
    assert((pool.take(1000).bytes eq b.bytes))
    assert((pool.take(1000).bytes eq a.bytes))
  }

  test("the pool keeps at most its bytes and its count of arrays, dropping the oldest") {
    val pool = new BufferPool(10000)
    val pages = (0 until 5).map(_ => pool.take(3000))
    pages.foreach(pool.give)
    assert(pool.heldBytes <= 10000 && pool.freeCount == 3)
    assert((pool.take(3000).bytes eq pages(2).bytes), "the oldest two were dropped")
    val many = new BufferPool(1L << 30)
    (0 until BufferPool.MaxFreeArrays + 5).map(_ => many.take(100)).foreach(many.give)
    assert(many.freeCount == BufferPool.MaxFreeArrays)
    val huge = pool.take(20000)
    assert(huge.bytes.length == 20000 && huge.isCurrent, "an array the pool could never keep is exact")
    pool.give(huge)
    assert(pool.freeCount == 2 && huge.isCurrent, "and is not kept")
  }

  test("a pool of 0 bytes hands out exact arrays of their own, always current") {
    val pool = new BufferPool(0)
    val p = pool.take(1000)
    assert(p.bytes.length == 1000)
    pool.give(p)
    assert(pool.freeCount == 0 && p.isCurrent)
    assert(!(pool.take(1000).bytes eq p.bytes))
  }

  test("pages of their own are always current") {
    val p = Page.of(new Array[Byte](10))
    assert(p.isCurrent && p.length == 10 && p.heldBytes == 10)
    new BufferPool(1 << 20).give(p)
    assert(p.isCurrent)
  }
}
