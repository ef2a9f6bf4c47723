package lamina.types

import lamina.errors.BadInputException

import scala.collection.mutable.ArrayBuffer

/** Parses Paimon's type strings: the output of [[DataType.asSQLString]] and the atomic type strings in
 *  schema JSON, plus the aliases Paimon's own parser accepts (INTEGER, NUMERIC, DEC, TIMESTAMP_LTZ,
 *  `WITHOUT TIME ZONE`, `DOUBLE PRECISION`, parameterless CHAR/DECIMAL/TIMESTAMP with Paimon's default
 *  parameters, `ROW(...)` besides `ROW<...>`). Keywords are case-insensitive. Row fields in a string
 *  carry no ids, so they are numbered 0, 1, 2, ... by position within their row.
 *
 *  Errors raise [[BadInputException]] naming the input and the character position.
 */
object DataTypeParser {

  def parse(s: String): DataType = {
    if (s == null) throw new BadInputException("Cannot parse a type from null")
    val p = new Parser(s, Lexer.tokenize(s))
    val t = p.parseType()
    p.expectEnd()
    t
  }

  private sealed trait Token { def pos: Int }
  private final case class Word(text: String, pos: Int) extends Token // keyword or plain identifier
  private final case class Quoted(text: String, pos: Int) extends Token // `identifier`
  private final case class Literal(text: String, pos: Int) extends Token // 'string literal'
  private final case class Num(value: String, pos: Int) extends Token
  private final case class Sym(c: Char, pos: Int) extends Token

  private object Lexer {
    def tokenize(s: String): IndexedSeq[Token] = {
      val out = ArrayBuffer.empty[Token]
      var i = 0
      def fail(msg: String, at: Int) = throw new BadInputException(s"Cannot parse type '$s' at position $at: $msg")
      def quotedUntil(q: Char, start: Int): (String, Int) = {
        val sb = new StringBuilder
        var j = start + 1
        var done = false
        while (!done) {
          if (j >= s.length) fail(s"unterminated $q", start)
          val c = s.charAt(j)
          if (c == q) {
            if (j + 1 < s.length && s.charAt(j + 1) == q) { sb.append(q); j += 2 }
            else { done = true; j += 1 }
          } else { sb.append(c); j += 1 }
        }
        (sb.toString, j)
      }
      while (i < s.length) {
        val c = s.charAt(i)
        if (Character.isWhitespace(c)) i += 1
        else if (c == '`') { val (t, j) = quotedUntil('`', i); out += Quoted(t, i); i = j }
        else if (c == '\'') { val (t, j) = quotedUntil('\'', i); out += Literal(t, i); i = j }
        else if (Character.isDigit(c)) {
          val start = i
          while (i < s.length && Character.isDigit(s.charAt(i))) i += 1
          out += Num(s.substring(start, i), start)
        } else if (Character.isLetter(c) || c == '_' || c == '$') {
          val start = i
          while (i < s.length && { val d = s.charAt(i); Character.isLetterOrDigit(d) || d == '_' || d == '$' }) i += 1
          out += Word(s.substring(start, i), start)
        } else if ("<>(),:".indexOf(c) >= 0) { out += Sym(c, i); i += 1 }
        else fail(s"unexpected character '$c'", i)
      }
      out.toIndexedSeq
    }
  }

  private final class Parser(input: String, tokens: IndexedSeq[Token]) {
    private var i = 0

    private def fail(msg: String): Nothing = {
      val at = if (i < tokens.length) tokens(i).pos else input.length
      throw new BadInputException(s"Cannot parse type '$input' at position $at: $msg")
    }
    private def peek: Option[Token] = if (i < tokens.length) Some(tokens(i)) else None
    private def peekWord(w: String): Boolean = peek match {
      case Some(Word(t, _)) => t.equalsIgnoreCase(w)
      case _ => false
    }
    private def peekSym(c: Char): Boolean = peek match {
      case Some(Sym(d, _)) => d == c
      case _ => false
    }
    private def acceptWord(w: String): Boolean = if (peekWord(w)) { i += 1; true }
    else false
    private def acceptSym(c: Char): Boolean = if (peekSym(c)) { i += 1; true }
    else false
    private def expectWord(w: String): Unit = if (!acceptWord(w)) fail(s"expected $w")
    private def expectSym(c: Char): Unit = if (!acceptSym(c)) fail(s"expected '$c'")

    def expectEnd(): Unit = if (i < tokens.length) fail("unexpected trailing input")

    private def int(): Int = peek match {
      case Some(Num(v, _)) =>
        i += 1
        try v.toInt
        catch { case _: NumberFormatException => fail(s"number $v is too large") }
      case _ => fail("expected a number")
    }

    /** `(n)` if present, else the default. */
    private def optParam(default: Int): Int =
      if (acceptSym('(')) { val n = int(); expectSym(')'); n }
      else default

    private def checked[T](make: => T): T =
      try make
      catch { case e: IllegalArgumentException => fail(e.getMessage.stripPrefix("requirement failed: ")) }

    def parseType(): DataType = {
      val t = parseBase()
      if (acceptWord("NOT")) { expectWord("NULL"); t.withNullable(false) }
      else { acceptWord("NULL"); t }
    }

    private def parseBase(): DataType = {
      val word = peek match {
        case Some(Word(w, _)) => i += 1; w.toUpperCase(java.util.Locale.ROOT)
        case Some(_) => fail("expected a type name")
        case None => fail("expected a type name, found the end of the input")
      }
      word match {
        case "BOOLEAN" => BooleanType()
        case "TINYINT" => TinyIntType()
        case "SMALLINT" => SmallIntType()
        case "INT" | "INTEGER" => IntType()
        case "BIGINT" => BigIntType()
        case "FLOAT" => FloatType()
        case "DOUBLE" => acceptWord("PRECISION"); DoubleType()
        case "DECIMAL" | "NUMERIC" | "DEC" =>
          if (acceptSym('(')) {
            val p = int()
            val s = if (acceptSym(',')) int() else 0
            expectSym(')')
            checked(DecimalType(p, s))
          } else DecimalType(DecimalType.DefaultPrecision, 0)
        case "CHAR" => checked(CharType(optParam(1)))
        case "VARCHAR" => checked(VarCharType(optParam(1)))
        case "STRING" => VarCharType.string()
        case "BINARY" => checked(BinaryType(optParam(1)))
        case "VARBINARY" => checked(VarBinaryType(optParam(1)))
        case "BYTES" => VarBinaryType.bytes()
        case "DATE" => DateType()
        case "TIME" =>
          val p = optParam(0)
          if (acceptWord("WITHOUT")) { expectWord("TIME"); expectWord("ZONE") }
          checked(TimeType(p))
        case "TIMESTAMP" =>
          val p = optParam(TimestampType.DefaultPrecision)
          if (acceptWord("WITHOUT")) { expectWord("TIME"); expectWord("ZONE"); checked(TimestampType(p)) }
          else if (acceptWord("WITH")) {
            expectWord("LOCAL"); expectWord("TIME"); expectWord("ZONE"); checked(LocalZonedTimestampType(p))
          } else checked(TimestampType(p))
        case "TIMESTAMP_LTZ" => checked(LocalZonedTimestampType(optParam(TimestampType.DefaultPrecision)))
        case "ARRAY" => ArrayType(nested1())
        case "MULTISET" => MultisetType(nested1())
        case "MAP" =>
          val close = open()
          val k = parseType(); expectSym(','); val v = parseType()
          expectSym(close)
          MapType(k, v)
        case "ROW" => parseRow()
        case "VARIANT" => VariantType()
        case "BLOB" => BlobType()
        case other => i -= 1; fail(s"unknown type $other")
      }
    }

    /** Opens `<` or `(` and returns the matching closing symbol. */
    private def open(): Char =
      if (acceptSym('<')) '>' else if (acceptSym('(')) ')' else fail("expected '<'")

    private def nested1(): DataType = { val close = open(); val t = parseType(); expectSym(close); t }

    private def parseRow(): RowType = {
      val close = open()
      val fields = ArrayBuffer.empty[DataField]
      if (!acceptSym(close)) {
        var more = true
        while (more) {
          val name = peek match {
            case Some(Quoted(t, _)) => i += 1; t
            case Some(Word(t, _)) => i += 1; t
            case _ => fail("expected a field name")
          }
          acceptSym(':')
          val t = parseType()
          val desc = peek match {
            case Some(Literal(d, _)) => i += 1; Some(d)
            case _ => None
          }
          fields += DataField(fields.length, name, t, desc)
          if (!acceptSym(',')) { expectSym(close); more = false }
        }
      }
      RowType(fields.toVector)
    }
  }
}
