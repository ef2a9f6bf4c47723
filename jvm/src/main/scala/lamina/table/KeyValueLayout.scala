package lamina.table

import org.apache.spark.sql.types.{ByteType, LongType, MetadataBuilder, StructField, StructType}

import lamina.table.schema.TableSchema
import lamina.types.{BigIntType, DataField, SparkTypes, TinyIntType}

/** The columns of a primary-key table's data file, in Paimon's layout: `_KEY_<k>` for each column
 *  of the trimmed primary key, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, then every column of the table.
 *  Invariant: records in a file are sorted by key, then by sequence number. */
final case class KeyValueLayout(schema: TableSchema) {
  val keyFields: Seq[DataField] = schema.trimmedPrimaryKeys.map(k => schema.field(k).get)
  val keyArity: Int = keyFields.size

  /** Ordinals, in the table row, of the key columns. */
  val keyOrdinals: Array[Int] = schema.trimmedPrimaryKeys.map(schema.indexOf).toArray
  val sequenceOrdinal: Int = keyArity
  val kindOrdinal: Int = keyArity + 1
  val valueOffset: Int = keyArity + 2

  /** The file's columns as Paimon types (each value column nullable, as in [[fileStruct]]): what a
   *  format that records types of its own (Avro) derives its schema from. */
  def fileFields: Seq[DataField] =
    keyFields.map(f => DataField(KeyValueLayout.KeyFieldIdStart + f.id, KeyValueLayout.KeyPrefix + f.name, f.dataType)) ++
      Seq(DataField(KeyValueLayout.SequenceNumberId, KeyValueLayout.SequenceNumber, BigIntType(nullable = false)),
        DataField(KeyValueLayout.ValueKindId, KeyValueLayout.ValueKind, TinyIntType(nullable = false))) ++
      schema.fields.map(f => f.copy(dataType = f.dataType.withNullable(true)))

  /** The Spark struct of the file, with Paimon's field ids as Parquet field ids. */
  def fileStruct: StructType = {
    // value columns are optional in the file: a delete record holds only the key
    val value = StructType(SparkTypes.toSparkStruct(schema.fields).fields.map(_.copy(nullable = true)))
    val keys = keyFields.map { f =>
      val sf = SparkTypes.toSparkField(f)
      StructField(KeyValueLayout.KeyPrefix + f.name, sf.dataType, sf.nullable,
        new MetadataBuilder().putLong(SparkTypes.FieldIdKey, KeyValueLayout.KeyFieldIdStart.toLong + f.id).build())
    }
    StructType(keys ++ Seq(
      StructField(KeyValueLayout.SequenceNumber, LongType, nullable = false,
        new MetadataBuilder().putLong(SparkTypes.FieldIdKey, KeyValueLayout.SequenceNumberId.toLong).build()),
      StructField(KeyValueLayout.ValueKind, ByteType, nullable = false,
        new MetadataBuilder().putLong(SparkTypes.FieldIdKey, KeyValueLayout.ValueKindId.toLong).build())) ++ value.fields)
  }
}

object KeyValueLayout {
  val KeyPrefix = "_KEY_"
  val SequenceNumber = "_SEQUENCE_NUMBER"
  val ValueKind = "_VALUE_KIND"
  val KeyFieldIdStart: Int = Int.MaxValue / 2
  val SequenceNumberId: Int = Int.MaxValue - 1
  val ValueKindId: Int = Int.MaxValue - 2
}
