package lamina.spark

import org.apache.spark.sql.connector.expressions.{Expressions, Transform}
import org.apache.spark.sql.types.{ArrayType, IntegerType, LongType, StringType, StructField, StructType}
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.types.{BigIntType, IntType, VarCharType}

/** [[CreateTableSpec]]: CREATE TABLE's Spark columns, partitioning and properties become schema 0, or
 *  a [[BadInputException]] naming the table and what is wrong, without Spark running. */
class CreateTableSpecTest extends AnyFunSuite {
  private val columns = StructType(Seq(
      StructField("id", LongType, nullable = true),
      StructField("day", StringType),
      StructField("v", IntegerType),
      StructField("tags", ArrayType(StringType))))

  private def schema(partitions: Seq[String] = Nil, props: Map[String, String] = Map.empty, s: StructType = columns) =
    CreateTableSpec.toSchema("db.t", s, partitions.map(p => Expressions.identity(p): Transform).toArray, props)

  private def refused(partitions: Seq[String], props: Map[String, String], s: StructType = columns): String =
    intercept[BadInputException](schema(partitions, props, s)).getMessage

  test("columns, keys and options: primary-key columns become NOT NULL, Spark's own properties are dropped") {
    val s = schema(Seq("day"),
      Map("primary-key" -> "id,day", "bucket" -> "2", "provider" -> "lamina",
        "owner" -> "me", "option.file.format" -> "orc", "comment" -> "events"))
    assert(s.fields.map(f => (f.id, f.name)) === Seq(0 -> "id", 1 -> "day", 2 -> "v", 3 -> "tags"))
    assert(s.fields(0).dataType === BigIntType(nullable = false))
    assert(s.fields(1).dataType === VarCharType.string().copy(nullable = false))
    assert(s.fields(2).dataType === IntType())
    assert(s.highestFieldId === 3)
    assert((s.primaryKeys, s.partitionKeys) === ((Seq("id", "day"), Seq("day"))))
    assert(s.options === Map("bucket" -> "2", "file.format" -> "orc"))
    assert(s.comment === Some("events"))
  }

  test("each broken rule of Paimon's table model is refused naming the table") {
    assert(refused(Nil, Map("primary-key" -> "nope", "bucket" -> "1")) ===
      "Primary-key column 'nope' of table db.t is not a column; columns are id, day, v, tags")
    assert(refused(Seq("day"), Map("primary-key" -> "id", "bucket" -> "1")) ===
      "Partition column 'day' of table db.t must be part of the primary key (id) with 'bucket' = '1'; a key that " +
      "moves between partitions (cross-partition upsert) needs 'bucket' = '-1'")
    // with dynamic buckets such a key moves between partitions, as in Paimon
    assert(schema(Seq("day"), Map("primary-key" -> "id")).primaryKeys === Seq("id"))
    // a primary-key table without 'bucket' has dynamic buckets, as in Paimon
    assert(schema(Nil, Map("primary-key" -> "id")).numBuckets === -1)
    assert(refused(Nil, Map("bucket" -> "4")) ===
      "Table db.t has 'bucket'='4' but no 'bucket-key': a fixed-bucket table without primary key needs 'bucket-key'")
    assert(refused(Nil, Map("bucket" -> "0")) ===
      "Invalid value '0' for option 'bucket' of table db.t: use -1, a positive number, or -2 (postponed buckets) " +
      "on a table with a primary key")
    assert(refused(Nil, Map("location" -> "/x")) ===
      "Table db.t: LOCATION '/x' is not supported: a table of this catalog lives in its database's directory of the warehouse")
    assert(refused(Nil, Map("provider" -> "delta")) ===
      "Table db.t: provider 'delta' is not supported by this catalog; omit USING or use USING lamina")
    assert(refused(Nil, Map.empty, StructType(columns.fields :+ StructField("ID", IntegerType))) ===
      "Table db.t has duplicate columns: id")
    assert(refused(Seq("nope"),
      Map.empty) === "Partition column 'nope' of table db.t is not a column; columns are id, day, v, tags")
  }
}
