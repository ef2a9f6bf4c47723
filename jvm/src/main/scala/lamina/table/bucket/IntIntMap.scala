package lamina.table.bucket

/** An open-addressing map from int to non-negative int without boxing, for the millions of key hashes
 *  a partition's hash index holds. A slot is one long (key in the high half, value in the low), so a
 *  lookup touches one cache line; -1 (a negative value) marks an empty slot. `get` of a key not in
 *  the map is -1. */
final class IntIntMap(expected: Int = 16) {
  private var capacity = Integer.highestOneBit(math.max(16, expected * 2 - 1)) << 1
  private var slots = empty(capacity)
  private var count = 0

  private def empty(n: Int): Array[Long] = { val a = new Array[Long](n); java.util.Arrays.fill(a, -1L); a }

  def size: Int = count

  private def home(k: Int): Int = {
    var h = k * 0x9e3779b9
    h ^= h >>> 16
    h & (capacity - 1)
  }

  /** The slot holding `k`, or the empty slot where it would go. */
  private def find(k: Int): Int = {
    var i = home(k)
    while (slots(i) != -1L && (slots(i) >>> 32).toInt != k) i = (i + 1) & (capacity - 1)
    i
  }

  def get(k: Int): Int = {
    val s = slots(find(k))
    if (s == -1L) -1 else s.toInt
  }

  def contains(k: Int): Boolean = slots(find(k)) != -1L

  /** Sets `k` to `v` (`v` >= 0); true when `k` was not in the map. */
  def put(k: Int, v: Int): Boolean = {
    require(v >= 0, s"value must be non-negative, got $v")
    if ((count + 1) * 4 > capacity * 3) grow()
    val i = find(k)
    val added = slots(i) == -1L
    slots(i) = (k.toLong << 32) | v.toLong
    if (added) count += 1
    added
  }

  def foreach(f: (Int, Int) => Unit): Unit = {
    var i = 0
    while (i < capacity) { val s = slots(i); if (s != -1L) f((s >>> 32).toInt, s.toInt); i += 1 }
  }

  private def grow(): Unit = {
    val old = slots
    capacity *= 2
    slots = empty(capacity)
    var i = 0
    while (i < old.length) { val s = old(i); if (s != -1L) slots(find((s >>> 32).toInt)) = s; i += 1 }
  }
}
