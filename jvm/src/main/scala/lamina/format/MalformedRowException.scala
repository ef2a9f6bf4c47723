package lamina.format

/** Bytes that do not form a valid Paimon BinaryRow for the expected types. Carries the byte offset
 *  (relative to the start of the bytes handed to the codec), what was expected and what was found, so
 *  that a caller who knows the file can turn it into a [[lamina.errors.CorruptFileException]]. */
final class MalformedRowException(
    val offset: Long,
    val expected: String,
    val actual: String,
    detail: String)
  extends IllegalArgumentException(
    s"Malformed binary row at byte $offset: expected $expected, found $actual" +
      (if (detail.isEmpty) "" else s" ($detail)"))
