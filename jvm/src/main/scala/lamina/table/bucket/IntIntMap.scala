package lamina.table.bucket

/** An open-addressing map from int to int without boxing, for the millions of key hashes a
 *  partition's hash index holds. `absent` is returned for a key not in the map. */
final class IntIntMap(expected: Int = 16, absent: Int = -1) {
  private var capacity = Integer.highestOneBit(math.max(16, expected * 2 - 1)) << 1
  private var keys = new Array[Int](capacity)
  private var values = new Array[Int](capacity)
  private var used = new Array[Boolean](capacity)
  private var count = 0

  def size: Int = count

  private def slot(k: Int): Int = {
    var h = k * 0x9e3779b9
    h ^= h >>> 16
    h & (capacity - 1)
  }

  def get(k: Int): Int = {
    var i = slot(k)
    while (used(i)) {
      if (keys(i) == k) return values(i)
      i = (i + 1) & (capacity - 1)
    }
    absent
  }

  def contains(k: Int): Boolean = {
    var i = slot(k)
    while (used(i)) {
      if (keys(i) == k) return true
      i = (i + 1) & (capacity - 1)
    }
    false
  }

  /** Sets `k` to `v`; true when `k` was not in the map. */
  def put(k: Int, v: Int): Boolean = {
    if ((count + 1) * 4 > capacity * 3) grow()
    var i = slot(k)
    while (used(i)) {
      if (keys(i) == k) { values(i) = v; return false }
      i = (i + 1) & (capacity - 1)
    }
    used(i) = true; keys(i) = k; values(i) = v; count += 1
    true
  }

  def foreach(f: (Int, Int) => Unit): Unit = {
    var i = 0
    while (i < capacity) { if (used(i)) f(keys(i), values(i)); i += 1 }
  }

  private def grow(): Unit = {
    val (ok, ov, ou) = (keys, values, used)
    capacity *= 2
    keys = new Array[Int](capacity); values = new Array[Int](capacity); used = new Array[Boolean](capacity)
    count = 0
    var i = 0
    while (i < ok.length) { if (ou(i)) put(ok(i), ov(i)); i += 1 }
  }
}
