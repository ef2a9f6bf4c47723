package lamina.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.NoSuchFunctionException
import org.apache.spark.sql.connector.catalog.Identifier
import org.apache.spark.sql.connector.catalog.functions.{BoundFunction, ScalarFunction, UnboundFunction}
import org.apache.spark.sql.types._

import lamina.format.BucketFunction
import lamina.types.SparkTypes

/** `bucket(numBuckets, key columns...)`: Paimon's bucket of a row's bucket key, as the catalog's
 *  function. Writes to fixed-bucket tables cluster their rows by it, so that each bucket is written by
 *  one task (one file per bucket and commit, not one per task that saw the bucket).
 *
 * Bound only for key types whose binary-row encoding Spark's type fixes (integral, boolean, date,
 * decimal, string, binary); a timestamp's encoding depends on the table's precision, which the
 * function cannot see. */
object BucketTransformFunction extends UnboundFunction {
  val Name = "bucket"

  override def name(): String = Name

  override def description(): String =
    "bucket(numBuckets, col, ...): the Paimon bucket, in [0, numBuckets), of the given bucket-key values"

  /** Whether rows with bucket keys of these types can be clustered by this function. */
  def supports(keyTypes: Seq[DataType]): Boolean = keyTypes.nonEmpty && keyTypes.forall {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | DateType | BinaryType | _: DecimalType => true
    case s: StringType => s.collationId == StringType.collationId
    case _ => false
  }

  override def bind(inputType: StructType): BoundFunction = {
    val types = inputType.fields.map(_.dataType).toSeq
    if (types.size < 2 || types.head != IntegerType || !supports(types.tail))
      throw new UnsupportedOperationException(
        s"bucket expects an int number of buckets and bucket-key columns of supported types, got ${inputType.simpleString}")
    new Bound(types.tail)
  }

  final class Bound(keyTypes: Seq[DataType]) extends ScalarFunction[Integer] {
    private val paimonTypes = keyTypes.map(t => SparkTypes.fromSpark(t, nullable = true, () => 0))
    @transient private var function: BucketFunction = _
    @transient private var functionBuckets = 0

    override def inputTypes(): Array[DataType] = (IntegerType +: keyTypes).toArray
    override def resultType(): DataType = IntegerType
    override def name(): String = Name
    override def canonicalName(): String = s"lamina.bucket(int, ${keyTypes.map(_.simpleString).mkString(", ")})"
    override def isResultNullable: Boolean = false

    override def produceResult(input: InternalRow): Integer = {
      val n = input.getInt(0)
      if (function == null || functionBuckets != n) {
        function = new BucketFunction(Array.range(1, keyTypes.size + 1), paimonTypes, n)
        functionBuckets = n
      }
      function(input)
    }
  }

  def load(ident: Identifier): UnboundFunction =
    if (ident.name().equalsIgnoreCase(Name)) this else throw new NoSuchFunctionException(ident)
}
