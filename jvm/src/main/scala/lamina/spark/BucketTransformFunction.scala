package lamina.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.NoSuchFunctionException
import org.apache.spark.sql.connector.catalog.Identifier
import org.apache.spark.sql.connector.catalog.functions.{BoundFunction, ScalarFunction, UnboundFunction}
import org.apache.spark.sql.types._

import lamina.format.{BinaryRowCodec, Bucket, BucketFunction}
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
    inputType.fields.tail match {
      case Array(k) if !k.nullable && k.dataType == LongType => new LongKey
      case Array(k) if !k.nullable && (k.dataType == IntegerType || k.dataType == DateType) => new IntKey(k.dataType)
      case _ => new Bound(types.tail)
    }
  }

  /** The bucket of any supported key, from the row of arguments Spark builds per call. */
  class Bound(val keyTypes: Seq[DataType]) extends ScalarFunction[Integer] {
    private val paimonTypes = keyTypes.map(t => SparkTypes.fromSpark(t, nullable = true, () => 0))
    @transient private var function: BucketFunction = _
    @transient private var functionBuckets = 0

    override def inputTypes(): Array[DataType] = (IntegerType +: keyTypes).toArray
    override def resultType(): DataType = IntegerType
    override def name(): String = Name
    override def canonicalName(): String = s"lamina.bucket(int, ${keyTypes.map(_.simpleString).mkString(", ")})"
    override def isResultNullable: Boolean = false

    override def produceResult(input: InternalRow): Integer = bucket(input)

    def bucket(input: InternalRow): Int = {
      val n = input.getInt(0)
      if (function == null || functionBuckets != n) {
        function = new BucketFunction(Array.range(1, keyTypes.size + 1), paimonTypes, n)
        functionBuckets = n
      }
      function(input)
    }
  }

  // Single non-null keys of one 8-byte slot get Spark's "magic method" `invoke`, which Spark calls from
  // generated code with the values themselves: no argument row, no boxing. Only non-null: Spark would
  // hand a null to a primitive parameter as 0.

  /** Bound to one non-null BIGINT key. */
  final class LongKey extends Bound(Seq(LongType)) {
    def invoke(numBuckets: Int, key: Long): Int = Bucket.bucketOfHash(BinaryRowCodec.hashOfSlot(key), numBuckets)
  }

  /** Bound to one non-null INT or DATE key. */
  final class IntKey(keyType: DataType) extends Bound(Seq(keyType)) {
    def invoke(numBuckets: Int, key: Int): Int =
      Bucket.bucketOfHash(BinaryRowCodec.hashOfSlot(key & 0xffffffffL), numBuckets)
  }

  def load(ident: Identifier): UnboundFunction =
    if (ident.name().equalsIgnoreCase(Name)) this
    else if (ident.name().equalsIgnoreCase(BucketTagFunction.Name)) BucketTagFunction
    else throw new NoSuchFunctionException(ident)

  def names: Seq[String] = Seq(Name, BucketTagFunction.Name)
}

/** `bucket_tag(numBuckets, key columns...)`: for clustering writes into exactly `numBuckets` shuffle
 *  partitions, one per bucket. Spark places a row in partition pmod(murmur3(value, 42), n); the bucket
 *  ids 0..n-1 themselves collide there (two buckets, one busy task), so this returns, for bucket b, the
 *  smallest int whose partition among n is b. */
object BucketTagFunction extends UnboundFunction {
  val Name = "bucket_tag"

  /** Above this many buckets the tags are not searched (the clustering falls back to the bucket id). */
  val MaxBuckets = 4096

  override def name(): String = Name

  override def description(): String =
    "bucket_tag(numBuckets, col, ...): an int that Spark's hash partitioning into numBuckets partitions " +
      "sends to the partition numbered as the Paimon bucket of the given bucket-key values"

  /** Tags of buckets 0..n-1: tags(b) is the smallest int >= 0 with pmod(murmur3(tag, 42), n) == b. */
  def tags(n: Int): Array[Int] = {
    require(n > 0 && n <= MaxBuckets, s"bucket tags for $n buckets")
    val out = Array.fill(n)(-1)
    var found = 0
    var v = 0
    while (found < n) {
      val p = java.lang.Math.floorMod(org.apache.spark.unsafe.hash.Murmur3_x86_32.hashInt(v, 42), n)
      if (out(p) < 0) { out(p) = v; found += 1 }
      v += 1
    }
    out
  }

  override def bind(inputType: StructType): BoundFunction = BucketTransformFunction.bind(inputType) match {
    case b: BucketTransformFunction.LongKey => new LongKeyTag(b)
    case b: BucketTransformFunction.IntKey => new IntKeyTag(b)
    case b: BucketTransformFunction.Bound => new Tag(b)
  }

  /** The tag of the bucket `bucket` computes. */
  class Tag(bucket: BucketTransformFunction.Bound) extends ScalarFunction[Integer] {
    @transient private var tagsOf: Array[Int] = _
    override def inputTypes(): Array[DataType] = bucket.inputTypes()
    override def resultType(): DataType = IntegerType
    override def name(): String = Name
    override def canonicalName(): String = bucket.canonicalName().replace("lamina.bucket", "lamina.bucket_tag")
    override def isResultNullable: Boolean = false
    override def produceResult(input: InternalRow): Integer = tag(input.getInt(0), bucket.bucket(input))

    protected def tag(numBuckets: Int, b: Int): Int = {
      if (tagsOf == null || tagsOf.length != numBuckets) tagsOf = tags(numBuckets)
      tagsOf(b)
    }
  }

  /** [[Tag]] with Spark's magic method for one non-null BIGINT key. */
  final class LongKeyTag(bucket: BucketTransformFunction.LongKey) extends Tag(bucket) {
    def invoke(numBuckets: Int, key: Long): Int = tag(numBuckets, bucket.invoke(numBuckets, key))
  }

  /** [[Tag]] with Spark's magic method for one non-null INT or DATE key. */
  final class IntKeyTag(bucket: BucketTransformFunction.IntKey) extends Tag(bucket) {
    def invoke(numBuckets: Int, key: Int): Int = tag(numBuckets, bucket.invoke(numBuckets, key))
  }
}
