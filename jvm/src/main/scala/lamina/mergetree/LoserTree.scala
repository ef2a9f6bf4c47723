package lamina.mergetree

/** A tournament tree of `players` players (0 until players) whose internal nodes hold the loser of
 *  the match played there; the overall winner is kept apart. Invariant: every node holds the loser of
 *  the match between the winners of its two subtrees under [[before]], where a player that is out
 *  (its values exhausted) loses every match and ties with none, as +infinity would.
 *
 *  Only the winner may change: after its value moves, [[winnerMoved]] replays the matches on its
 *  path from leaf to root, log2(players) comparisons. (A loser tree cannot replay the path of another
 *  player: the winner of the other side of a match that player lost is not kept.) The runner-up, the
 *  best loser on the winner's path, is remembered once known: while the winner's new values still
 *  precede it, the tree is left alone, one comparison each, so a player whose values come before all
 *  others' is read without replays. It is found again after a replay only when the same player won
 *  again (or when asked for), not after every replay, which would double the cost of interleaved
 *  players.
 *
 *  A subclass supplies the order of its players and drives the tree: the comparisons are calls on
 *  itself, which the JIT inlines. Nodes are numbered as in a binary heap: 1 until players internal
 *  (node n's children are 2n and 2n + 1), player i at leaf players + i. */
abstract class LoserTree(players: Int) {

  /** Whether player `a`'s value precedes player `b`'s: a strict total order on the live players,
   *  each of which precedes every player that is out (those need no order among themselves). The
   *  subclass orders the players that are out, as +infinity, so that a match needs no test of its
   *  own. */
  protected def before(a: Int, b: Int): Boolean

  /** Whether players `a` and `b` tie: an equivalence whose classes are consecutive in the order (as
   *  "have equal keys", for an order by key first); a player that is out ties with none. */
  protected def tie(a: Int, b: Int): Boolean

  /** Whether player `p` is out: its values are exhausted. */
  protected def out(p: Int): Boolean

  private val losers = new Array[Int](math.max(players, 1))

  /** The player on top of the tree (out only when all are), or -1 when there are none. */
  private var top = -1

  /** `top` when live, else -1. */
  private var best = -1
  private final val Unknown = -2

  /** The runner-up; -1 when the winner is alone (or there is none), [[Unknown]] until found. */
  private var second = Unknown
  private val foundAt = new Array[Int](players)

  /** The best live player, or -1 when every player is out. */
  protected final def winner: Int = best

  /** Plays the whole tournament. */
  protected final def start(): Unit = {
    val winners = new Array[Int](2 * players)
    var i = 0
    while (i < players) { winners(players + i) = i; i += 1 }
    var n = players - 1
    while (n >= 1) {
      val a = winners(2 * n)
      val b = winners(2 * n + 1)
      val aWins = before(a, b)
      winners(n) = if (aWins) a else b
      losers(n) = if (aWins) b else a
      n -= 1
    }
    crown(if (players == 0) -1 else winners(1))
  }

  /** The best live player after the winner, or -1 when the winner is alone (or there is none). */
  protected final def runnerUp: Int = {
    if (second == Unknown) {
      second = -1
      if (best >= 0) {
        var n = (best + players) >>> 1
        while (n > 0) {
          val l = losers(n)
          if (second < 0 || before(l, second)) second = l
          n >>>= 1
        }
        if (second >= 0 && out(second)) second = -1
      }
    }
    second
  }

  /** Restores the tree after the winner's value moved (the winner is still live). */
  protected final def winnerMoved(): Unit = {
    if (second >= 0) { if (before(best, second)) return } // still first: the tree stands
    else if (second == -1) return
    val w = best
    best = replay() // a live player moved: the winner is live
    second = Unknown
    if (best == w) runnerUp // won again: perhaps a stretch of its own, which the runner-up lets skip replays
  }

  /** Restores the tree after the winner went out. */
  protected final def winnerOut(): Unit = crown(replay())

  /** Whether a live player ties with the winner (which is live): asked of the runner-up when known,
   *  else of the losers on the winner's path, one of which is the runner-up. */
  protected final def winnerTies: Boolean =
    if (second >= 0) tie(second, best)
    else if (second == -1) false
    else {
      var n = (best + players) >>> 1
      while (n > 0 && !tie(losers(n), best)) n >>>= 1
      n > 0
    }

  /** Puts into `into` the winner (which is live) and the live players that tie with it, in order,
   *  and returns how many. The others are found on the paths of those before them: each lost its last
   *  match to one. */
  protected final def winnerAndTies(into: Array[Int]): Int = {
    into(0) = best
    foundAt(0) = 0
    var count = 1
    var i = 0
    while (i < count) {
      // the losers below the node where player i lost (the root for the winner)
      var n = (into(i) + players) >>> 1
      while (n > foundAt(i)) {
        val l = losers(n)
        if (tie(l, best)) { into(count) = l; foundAt(count) = n; count += 1 }
        n >>>= 1
      }
      i += 1
    }
    // few, and all but the winner in no order
    i = 2
    while (i < count) {
      val p = into(i)
      var j = i
      while (before(p, into(j - 1))) { into(j) = into(j - 1); j -= 1 }
      into(j) = p
      i += 1
    }
    count
  }

  /** Replays the matches on the path of `top`, whose value moved, and returns the new top. */
  private def replay(): Int = {
    var c = top
    var n = (c + players) >>> 1
    while (n > 0) {
      // the outcome of a match is as good as random: a select and a store, no store under a branch
      val l = losers(n)
      val w = if (before(l, c)) l else c
      losers(n) = l ^ c ^ w // the other one
      c = w
      n >>>= 1
    }
    top = c
    c
  }

  private def crown(player: Int): Unit = {
    top = player
    best = if (player < 0 || out(player)) -1 else player
    second = Unknown
  }
}
