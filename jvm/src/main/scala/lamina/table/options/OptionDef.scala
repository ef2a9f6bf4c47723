package lamina.table.options

import lamina.errors.BadInputException

/** One typed option: its key, how to parse it, its default, where it may be set and its
 *  documentation. Invariant: `parse(default)` succeeds whenever a default is given. */
final case class OptionDef[T](
    key: String,
    kind: OptionKind[T],
    default: Option[String],
    scope: OptionScope,
    doc: String) {

  /** The value for this option in `options`, or its default; bad values raise a [[BadInputException]]
   *  that names the option and the value. */
  def get(options: Map[String, String]): Option[T] =
    options.get(key).orElse(default).map(v => parseOrFail(v))

  /** The value `options` set for this option, without falling back to the default. */
  def explicit(options: Map[String, String]): Option[T] = options.get(key).map(v => parseOrFail(v))

  def getOrDefault(options: Map[String, String]): T =
    get(options).getOrElse(throw new IllegalStateException(s"option '$key' has no default"))

  /** [[getOrDefault]] of a table's options; a bad value fails naming the table as well as the option. */
  def ofTable(options: Map[String, String], table: String): T =
    try getOrDefault(options)
    catch { case e: BadInputException => throw new BadInputException(s"Table $table: ${e.getMessage}", e) }

  def parseOrFail(value: String): T = parse(value, None)

  /** [[parseOrFail]] of an option of `table`: a bad value fails naming the table, the option and the value. */
  def parseOrFail(value: String, table: String): T = parse(value, Some(table))

  private def parse(value: String, table: Option[String]): T =
    kind.parse(value.trim) match {
      case Right(v) => v
      case Left(why) => throw BadInputException.invalidOption(key, value, why, table)
    }
}

/** How the text of an option becomes a typed value. */
trait OptionKind[T] {
  def name: String
  def parse(s: String): Either[String, T]
}

object OptionKind {
  val IntKind: OptionKind[Int] = simple("int")(s => s.toIntOption.toRight("expected an integer"))

  /** Integers from `min` to `max`. */
  def intBetween(min: Int, max: Int): OptionKind[Int] = simple(s"int $min..$max")(s =>
    s.toIntOption.toRight("expected an integer").filterOrElse(v => v >= min && v <= max, s"expected $min to $max"))

  /** Integers of at least `min`. */
  def intAtLeast(min: Int): OptionKind[Int] = simple(s"int >= $min")(s =>
    s.toIntOption.toRight("expected an integer").filterOrElse(_ >= min, s"expected at least $min"))
  val LongKind: OptionKind[Long] = simple("long")(s => s.toLongOption.toRight("expected an integer"))

  /** Longs of at least `min`. */
  def longAtLeast(min: Long): OptionKind[Long] = simple(s"long >= $min")(s =>
    s.toLongOption.toRight("expected an integer").filterOrElse(_ >= min, s"expected at least $min"))
  val DoubleKind: OptionKind[Double] = simple("double")(s => s.toDoubleOption.toRight("expected a number"))
  val BooleanKind: OptionKind[Boolean] = simple("boolean")(s =>
    s.toLowerCase match {
      case "true" => Right(true)
      case "false" => Right(false)
      case _ => Left("expected true or false")
    })
  val StringKind: OptionKind[String] = simple("string")(s => Right(s))
  val ListKind: OptionKind[Seq[String]] = simple("list")(s =>
    Right(s.split(",").map(_.trim).filter(_.nonEmpty).toSeq))

  /** Sizes such as `128 mb`, `64kb`, `1073741824`. */
  val MemorySizeKind: OptionKind[Long] = simple("memory size") { s =>
    val m = """(?i)^\s*(\d+)\s*(b|bytes|k|kb|kib|m|mb|mib|g|gb|gib|t|tb|tib)?\s*$""".r
    s match {
      case m(n, unit) =>
        val mult = Option(unit).map(_.toLowerCase.take(1)).getOrElse("b") match {
          case "b" => 1L
          case "k" => 1L << 10
          case "m" => 1L << 20
          case "g" => 1L << 30
          case "t" => 1L << 40
        }
        exactProduct(n, mult).toRight("size out of range")
      case _ => Left("expected a size such as 128 mb")
    }
  }

  /** Sizes of at least one byte. */
  val PositiveMemorySizeKind: OptionKind[Long] = simple("memory size > 0")(s =>
    MemorySizeKind.parse(s).filterOrElse(_ > 0, "expected a size of at least 1 byte"))

  /** Durations such as `1 h`, `30 min`, `10 s`, `500 ms`; the value is in milliseconds. */
  val DurationKind: OptionKind[Long] = simple("duration") { s =>
    val m = """(?i)^\s*(\d+)\s*(ms|s|sec|min|m|h|d)?\s*$""".r
    s match {
      case m(n, unit) =>
        val mult = Option(unit).map(_.toLowerCase).getOrElse("ms") match {
          case "ms" => 1L
          case "s" | "sec" => 1000L
          case "min" | "m" => 60000L
          case "h" => 3600000L
          case "d" => 86400000L
        }
        exactProduct(n, mult).toRight("duration out of range")
      case _ => Left("expected a duration such as 1 h")
    }
  }

  /** `digits * mult`, or None when it does not fit in a long. */
  private def exactProduct(digits: String, mult: Long): Option[Long] =
    digits.toLongOption.flatMap(n => scala.util.Try(Math.multiplyExact(n, mult)).toOption)

  /** The values of an enumerated option, each written as `text(value)` (any case accepted). */
  def enumOf[T](values: Seq[T])(text: T => String): EnumKind[T] =
    new EnumKind(values, text, values.map(text).mkString("|"), s"expected one of ${values.map(text).mkString(", ")}")

  /** Values that `parse` accepts, of the type called `n`; anything else is "expected `n`". */
  def described[T](n: String)(parse: String => Option[T]): OptionKind[T] = simple(n)(s => parse(s).toRight(s"expected $n"))

  /** `level:value` pairs separated by commas (Paimon's per-level map options), each level 0 or more and
   *  each value one of `values` (any case, any spacing); `what` names a value (`format`), `example` is
   *  one such text. A pair that is not one is named in the error, with the values it may take. */
  def perLevel[T](what: String, example: String, values: Seq[T])(text: T => String): OptionKind[Map[Int, T]] =
    simple(s"level:$what pairs, e.g. $example") { s =>
      val pairs = s.split(",").map(_.trim).filter(_.nonEmpty).toSeq
      def parse(pair: String): Option[(Int, T)] = pair.split(":", 2).map(_.trim) match {
        case Array(level, value) =>
          level.toIntOption.filter(_ >= 0).zip(values.find(v => text(v).equalsIgnoreCase(value)))
        case _ => None
      }
      pairs.find(parse(_).isEmpty) match {
        case Some(bad) => Left(s"expected level:$what pairs, e.g. $example; '$bad' is not one (a level of 0 or more, " +
            s"a $what of ${values.map(text).mkString(", ")})")
        case None => Right(pairs.flatMap(parse).toMap)
      }
    }

  private def simple[T](n: String)(f: String => Either[String, T]): OptionKind[T] = new OptionKind[T] {
    val name: String = n
    def parse(s: String): Either[String, T] = f(s)
  }
}

/** An enumerated option: each of `values` is written as its `text` (any case accepted), and parses to
 *  the value itself, so that code decides by the value, never by comparing text. `name` is the type's
 *  name in docs/options.md, `expected` the reason given for any other text. */
final class EnumKind[T](val values: Seq[T], text: T => String, val name: String, expected: String) extends OptionKind[T] {
  def textOf(value: T): String = text(value)
  def parse(s: String): Either[String, T] = values.find(v => text(v).equalsIgnoreCase(s)).toRight(expected)
}
