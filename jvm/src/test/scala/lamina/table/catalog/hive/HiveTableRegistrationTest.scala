package lamina.table.catalog.hive

import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite

import lamina.table.TestTables
import lamina.table.schema.TableSchema
import lamina.types._

class HiveTableRegistrationTest extends AnyFunSuite {

  private val schema: TableSchema = TestTables.eventsSchema(Map("bucket" -> "2", "hive.team" -> "north",
      "partition.expiration-time" -> "7 d", "file.format" -> "parquet")).copy(primaryKeys = Seq("id", "p"),
    comment = Some("events"))

  test("a registration is Paimon's: table type, storage handler, formats, SerDe, columns and location") {
    val t = HiveTableRegistration.create("d", "t", "alice", schema, "file:/wh/d.db/t", locationInProperties = false,
      syncAll = false)
    assert(t.getDbName == "d" && t.getTableName == "t" && t.getOwner == "alice")
    assert(t.getTableType == "MANAGED_TABLE")
    assert(HiveTableRegistration.isPaimonTable(t))
    val params = t.getParameters.asScala.toMap
    assert(params == Map("table_type" -> "PAIMON", "storage_handler" -> "org.apache.paimon.hive.PaimonStorageHandler",
      "team" -> "north", "partition.expiration-time" -> "7 d", "comment" -> "events"))
    val sd = t.getSd
    assert(sd.getInputFormat == "org.apache.paimon.hive.mapred.PaimonInputFormat")
    assert(sd.getOutputFormat == "org.apache.paimon.hive.mapred.PaimonOutputFormat")
    assert(sd.getSerdeInfo.getSerializationLib == "org.apache.paimon.hive.PaimonSerDe")
    assert(sd.getLocation == "file:/wh/d.db/t")
    assert(sd.getCols.asScala.map(c => c.getName -> c.getType) == Seq("id" -> "int", "v" -> "string", "p" -> "string"))
    assert(t.getPartitionKeys.isEmpty, "Paimon registers partitioned tables unpartitioned by default")
    assert(HiveTableRegistration.location(t).contains("file:/wh/d.db/t"))
  }

  test("sync-all-properties copies every option and the keys; location-in-properties moves the location") {
    val t = HiveTableRegistration.create("d", "t", "alice", schema, "s3://b/wh/d.db/t", locationInProperties = true,
      syncAll = true)
    val params = t.getParameters.asScala.toMap
    assert(params("bucket") == "2" && params("file.format") == "parquet" && params("hive.team") == "north")
    assert(params("primary-key") == "id,p" && params("partition") == "p" && params("bucket-key") == "id")
    assert(params("paimon_location") == "s3://b/wh/d.db/t")
    assert(t.getSd.getLocation == null)
    assert(HiveTableRegistration.location(t).contains("s3://b/wh/d.db/t"))
  }

  test("an update follows the schema: new columns, removed options, comments on one line") {
    val t = HiveTableRegistration.create("d", "t", "alice", schema, "file:/wh/d.db/t", false, syncAll = true)
    val next = schema.copy(id = 1, fields = schema.fields :+ DataField(3, "note", VarCharType(10), Some("a\nb")),
      options = schema.options - "file.format")
    HiveTableRegistration.update(t, next, Set("file.format"), "file:/wh/d.db/t", false, syncAll = true)
    assert(!t.getParameters.containsKey("file.format"))
    assert(t.getSd.getCols.asScala.last.getName == "note")
    assert(t.getSd.getCols.asScala.last.getType == "varchar(10)")
    assert(t.getSd.getCols.asScala.last.getComment == "a b")
  }

  test("a table of other formats is not Paimon's") {
    val t = HiveTableRegistration.create("d", "t", "alice", schema, "file:/x", false, false)
    t.getSd.setInputFormat("org.apache.hadoop.mapred.TextInputFormat")
    assert(!HiveTableRegistration.isPaimonTable(t))
  }

  test("Hive type names, as Paimon's Hive catalog writes them") {
    val cases = Seq[(DataType, String)](
      BooleanType() -> "boolean", TinyIntType() -> "tinyint", SmallIntType() -> "smallint", IntType() -> "int",
      BigIntType() -> "bigint", FloatType() -> "float", DoubleType() -> "double", DecimalType(38, 10) -> "decimal(38,10)",
      CharType(10) -> "char(10)", CharType(300) -> "string", VarCharType(20) -> "varchar(20)",
      VarCharType.string() -> "string", BinaryType(4) -> "binary", VarBinaryType(9) -> "binary", DateType() -> "date",
      TimeType() -> "string", TimestampType(3) -> "timestamp", LocalZonedTimestampType(6) -> "timestamp",
      ArrayType(IntType()) -> "array<int>", MapType(VarCharType.string(), BigIntType()) -> "map<string,bigint>",
      MultisetType(IntType()) -> "map<int,int>",
      RowType(Seq(DataField(0, "a", IntType()), DataField(1, "b", ArrayType(DateType())))) -> "struct<a:int,b:array<date>>",
      VariantType() -> "struct<value:binary,metadata:binary>")
    cases.foreach { case (t, name) => assert(HiveTypes.name(t) == name, t) }
  }
}
