package lamina.table.schema

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.types._

class SchemaEvolutionTest extends AnyFunSuite {
  import SchemaChange._

  private val pkTable: TableSchema = TableSchema(
    id = 3,
    fields = Seq(
      DataField(0, "id", BigIntType(nullable = false)),
      DataField(1, "dt", DateType(nullable = false)),
      DataField(2, "name", VarCharType.string(), Some("who")),
      DataField(3, "score", IntType()),
      DataField(4, "price", DecimalType(10, 2)),
      DataField(5, "tag", VarCharType(10)),
      DataField(6, "r", RowType(Seq(DataField(7, "a", IntType()))))),
    highestFieldId = 7,
    partitionKeys = Seq("dt"),
    primaryKeys = Seq("id", "dt"),
    options = Map("bucket" -> "4"),
    comment = Some("before"),
    timeMillis = 1L)

  /** An append table with a fixed bucket count and an explicit bucket key. */
  private val bucketed: TableSchema = TableSchema(
    id = 0,
    fields = Seq(DataField(0, "k", IntType()), DataField(1, "v", VarCharType.string()), DataField(2, "p", IntType())),
    highestFieldId = 2,
    partitionKeys = Seq("p"),
    primaryKeys = Nil,
    options = Map("bucket" -> "2", "bucket-key" -> "k"),
    comment = None,
    timeMillis = 1L)

  private def evolve(changes: SchemaChange*): TableSchema = SchemaEvolution(pkTable, changes, "db.t", 99L)

  private def rejected(changes: SchemaChange*): String =
    intercept[BadInputException](evolve(changes: _*)).getMessage

  private def rejectedOn(s: TableSchema, changes: SchemaChange*): String =
    intercept[BadInputException](SchemaEvolution(s, changes, "db.b", 99L)).getMessage

  test("the next schema has the next id and the given time; an empty change list changes nothing else") {
    val next = evolve()
    assert(next === pkTable.copy(id = 4, timeMillis = 99L))
  }

  test("options: set, replace, remove") {
    val s = evolve(SetOption("target-file-size", "64 mb"), SetOption("file.format", "orc"), RemoveOption("no-such"))
    assert(s.options === Map("bucket" -> "4", "target-file-size" -> "64 mb", "file.format" -> "orc"))
    val s2 = SchemaEvolution(s, Seq(SetOption("target-file-size", "32 mb"), RemoveOption("file.format")), "db.t", 100L)
    assert(s2.options === Map("bucket" -> "4", "target-file-size" -> "32 mb"))
    assert(s2.id === 5)
    assert(evolve(SetOption("bucket", "4")).options === pkTable.options)
  }

  test("option rejections") {
    assert(rejected(SetOption("bukcet", "4")) === "Unknown option 'bukcet' for table db.t; did you mean 'bucket'?")
    assert(rejected(SetOption("bucket", "x")) === "Invalid value 'x' for option 'bucket' of table db.t: expected an integer")
    // a fixed count may change to another (each partition keeps its own until rescaled), to nothing else
    assert(evolve(SetOption("bucket", "8")).options("bucket") === "8")
    assert(rejected(SetOption("bucket", "-1")) ===
      "Cannot change option 'bucket' of existing table db.t: only a fixed bucket count (above 0) may change to another")
    assert(rejected(RemoveOption("bucket")) === "Cannot remove option 'bucket' of existing table db.t")
    val unbucketed = pkTable.copy(options = Map.empty)
    assert(rejectedOn(unbucketed, SetOption("bucket", "3")) === "Cannot change option 'bucket' of existing table db.b")
    assert(SchemaEvolution(unbucketed, Seq(SetOption("bucket", "-1")), "db.b", 1L).options === Map("bucket" -> "-1"))
    assert(rejectedOn(bucketed, RemoveOption("bucket-key")) === "Cannot remove option 'bucket-key' of existing table db.b")
  }

  test("the primary and partition keys, held by the schema, cannot be changed or removed as options") {
    assert(rejected(SetOption("primary-key",
        "name")) === "Cannot change option 'primary-key' of existing table db.t: it is id,dt")
    assert(rejected(RemoveOption("primary-key")) === "Cannot remove option 'primary-key' of existing table db.t: it is id,dt")
    assert(rejected(SetOption("partition", "score")) === "Cannot change option 'partition' of existing table db.t: it is dt")
    assert(rejectedOn(bucketed,
      SetOption("primary-key", "k")) === "Cannot change option 'primary-key' of existing table db.b: it has none")
    // the same keys again change nothing, and are not stored as options beside the schema's
    assert(evolve(SetOption("primary-key", "id, dt"), SetOption("partition", "dt")).options === pkTable.options)
    assert(SchemaEvolution(bucketed, Seq(RemoveOption("primary-key")), "db.b", 1L).options === bucketed.options)
  }

  test("the options that decide a primary-key table's rows are fixed; text with the same value changes nothing") {
    val fixed = "it decides which rows the table holds"
    assert(rejected(SetOption("merge-engine", "first-row")) ===
      s"Cannot change option 'merge-engine' of existing table db.t: $fixed")
    assert(evolve(SetOption("merge-engine", " DEDUPLICATE ")).options("merge-engine") === " DEDUPLICATE ")
    assert(rejected(SetOption("sequence.field", "score")) ===
      s"Cannot change option 'sequence.field' of existing table db.t: $fixed")
    assert(evolve(SetOption("sequence.field", " ")).options("sequence.field") === " ")
    val seq = pkTable.copy(options = pkTable.options + ("sequence.field" -> "score,price"))
    assert(SchemaEvolution(seq, Seq(SetOption("sequence.field", "score, price")), "db.t", 1L).options("sequence.field") ===
      "score, price")
    assert(intercept[BadInputException](SchemaEvolution(seq, Seq(SetOption("sequence.field", "price")), "db.t", 1L))
      .getMessage === s"Cannot change option 'sequence.field' of existing table db.t: $fixed")
    assert(intercept[BadInputException](SchemaEvolution(seq, Seq(RemoveOption("sequence.field")), "db.t", 1L))
      .getMessage === s"Cannot remove option 'sequence.field' of existing table db.t: $fixed")
    val partial = pkTable.copy(options = pkTable.options + ("merge-engine" -> "partial-update"))
    assert(intercept[BadInputException](SchemaEvolution(partial, Seq(RemoveOption("merge-engine")), "db.t", 1L))
      .getMessage === s"Cannot remove option 'merge-engine' of existing table db.t: $fixed")
    val dedup = pkTable.copy(options = pkTable.options + ("merge-engine" -> "Deduplicate"))
    assert(SchemaEvolution(dedup, Seq(RemoveOption("merge-engine")), "db.t", 1L).options === pkTable.options)
    // an append table merges nothing
    assert(SchemaEvolution(bucketed, Seq(SetOption("merge-engine", "first-row")), "db.b", 1L).options("merge-engine") ===
      "first-row")
  }

  test("sequence.field.sort-order is fixed as sequence.field is; its default text changes nothing") {
    assert(rejected(SetOption("sequence.field.sort-order", "descending")) ===
      "Cannot change option 'sequence.field.sort-order' of existing table db.t: it decides which rows the table holds")
    assert(evolve(SetOption("sequence.field.sort-order", "Ascending")).options("sequence.field.sort-order") === "Ascending")
    val desc = pkTable.copy(options = pkTable.options + ("sequence.field.sort-order" -> "descending"))
    assert(intercept[BadInputException](SchemaEvolution(desc, Seq(RemoveOption("sequence.field.sort-order")), "db.t", 1L))
      .getMessage === "Cannot remove option 'sequence.field.sort-order' of existing table db.t: it decides which rows " +
      "the table holds")
  }

  test("ignore-update-before can be switched on, never back off (Paimon's rule)") {
    val on = evolve(SetOption("ignore-update-before", "true"))
    assert(on.options("ignore-update-before") === "true")
    val off = "Cannot change option 'ignore-update-before' of existing table db.t from true to false"
    assert(intercept[BadInputException](SchemaEvolution(on, Seq(SetOption("ignore-update-before", "FALSE")), "db.t", 1L))
      .getMessage === off)
    assert(intercept[BadInputException](SchemaEvolution(on, Seq(RemoveOption("ignore-update-before")), "db.t", 1L))
      .getMessage === off)
    assert(SchemaEvolution(on, Seq(SetOption("ignore-update-before", "true")), "db.t", 1L).options("ignore-update-before") ===
      "true")
    assert(evolve(SetOption("ignore-update-before", "false")).options("ignore-update-before") === "false")
  }

  test("the bucket key of an existing table cannot be changed") {
    assert(rejectedOn(bucketed, SetOption("bucket-key", "v")) === "Cannot change option 'bucket-key' of existing table db.b")
    assert(SchemaEvolution(bucketed, Seq(SetOption("bucket-key", "k")), "db.b", 1L).options === bucketed.options)
    assert(rejected(SetOption("bucket-key", "id")) === "Cannot change option 'bucket-key' of existing table db.t")
  }

  test("table comment") {
    assert(evolve(UpdateComment(Some("after"))).comment === Some("after"))
    assert(evolve(UpdateComment(None)).comment === None)
  }

  test("add column last, first and after another, with a fresh id") {
    val last = evolve(AddColumn("z", IntType(), Some("zed")))
    assert(last.fields.last === DataField(8, "z", IntType(), Some("zed")))
    assert(last.highestFieldId === 8)
    assert(evolve(AddColumn("z", IntType(), None, Some(None))).fieldNames.head === "z")
    assert(evolve(AddColumn("z", IntType(), None, Some(Some("name")))).fieldNames ===
      Seq("id", "dt", "name", "z", "score", "price", "tag", "r"))
    assert(evolve(AddColumn("z", IntType(), None, Some(Some("r")))).fieldNames.last === "z")
    val two = evolve(AddColumn("y", IntType(), None), AddColumn("z", IntType(), None))
    assert(two.fields.takeRight(2).map(_.id) === Seq(8, 9))
    assert(two.highestFieldId === 9)
  }

  test("an added nested column gets ids for every nested field, all above the old highest id") {
    val t = RowType(Seq(
        DataField(0, "x", IntType()),
        DataField(0, "y", ArrayType(RowType(Seq(DataField(0, "z", IntType())))))))
    val s = evolve(AddColumn("n", t, None), AddColumn("after", IntType(), None))
    val added = s.field("n").get
    assert(added.dataType === RowType(Seq(
        DataField(8, "x", IntType()),
        DataField(10, "y", ArrayType(RowType(Seq(DataField(9, "z", IntType()))))))))
    assert(added.id === 11)
    assert(s.field("after").get.id === 12)
    assert(s.highestFieldId === 12)
    assert(s.highestFieldId === TableSchema.highestId(s.fields))
    val r = s.field("r").get
    assert(r === pkTable.field("r").get)
  }

  test("add column rejections: NOT NULL, duplicate names, unknown anchor") {
    assert(rejected(AddColumn("z", IntType(nullable = false), None)) ===
      "Cannot add NOT NULL column 'z' to table db.t: existing rows have no value for it")
    assert(rejected(AddColumn("score", BigIntType(), None)) === "Column 'score' already exists in table db.t")
    assert(rejected(AddColumn("z", IntType(), None), AddColumn("z", IntType(), None)) ===
      "Column 'z' already exists in table db.t")
    assert(rejected(AddColumn("z", IntType(), None, Some(Some("nope")))) === "Column 'nope' does not exist in table db.t")
  }

  test("rename keeps the field id and the position") {
    val s = evolve(RenameColumn("score", "points"))
    assert(s.fields(3) === DataField(3, "points", IntType()))
    assert(s.field("score") === None)
  }

  test("rename rejections") {
    assert(rejected(RenameColumn("dt", "day")) === "Cannot rename partition column 'dt' of table db.t")
    assert(rejected(RenameColumn("id", "key")) === "Cannot rename primary-key column 'id' of table db.t")
    assert(rejected(RenameColumn("score", "name")) === "Column 'name' already exists in table db.t")
    assert(rejected(RenameColumn("nope", "x")) === "Column 'nope' does not exist in table db.t")
    assert(rejectedOn(bucketed, RenameColumn("p", "q")) === "Cannot rename partition column 'p' of table db.b")
  }

  test("drop removes the column; its id is never reused") {
    val s = evolve(DropColumn("score"))
    assert(s.fieldNames === Seq("id", "dt", "name", "price", "tag", "r"))
    assert(s.highestFieldId === 7)
    val readded = SchemaEvolution(s, Seq(AddColumn("score", IntType(), None)), "db.t", 1L)
    assert(readded.field("score").get.id === 8)
  }

  test("drop rejections") {
    assert(rejected(DropColumn("dt")) === "Cannot drop partition column 'dt' of table db.t")
    assert(rejected(DropColumn("id")) === "Cannot drop primary-key column 'id' of table db.t")
    assert(rejected(DropColumn("nope")) === "Column 'nope' does not exist in table db.t")
    val single = pkTable.copy(fields = Seq(DataField(0, "a", IntType())), partitionKeys = Nil, primaryKeys = Nil)
    assert(rejectedOn(single, DropColumn("a")) === "Cannot drop the only column 'a' of table db.b")
  }

  test("the columns of an explicit bucket key cannot be dropped, renamed or retyped") {
    assert(rejectedOn(bucketed, DropColumn("k")) === "Cannot drop bucket-key column 'k' of table db.b")
    assert(rejectedOn(bucketed, RenameColumn("k", "key")) === "Cannot rename bucket-key column 'k' of table db.b")
    assert(rejectedOn(bucketed, UpdateColumnType("k", BigIntType())) ===
      "Cannot change the type of bucket-key column 'k' of table db.b")
    assert(SchemaEvolution(bucketed, Seq(DropColumn("v")), "db.b", 1L).fieldNames === Seq("k", "p"))
  }

  test("type widening keeps the column's nullability and id") {
    val s = evolve(UpdateColumnType("score", BigIntType(nullable = false)), UpdateColumnType("price", DecimalType(12, 2)),
      UpdateColumnType("tag", VarCharType.string()))
    assert(s.field("score").get === DataField(3, "score", BigIntType()))
    assert(s.field("price").get === DataField(4, "price", DecimalType(12, 2)))
    assert(s.field("tag").get === DataField(5, "tag", VarCharType.string()))
  }

  test("type change rejections") {
    assert(rejected(UpdateColumnType("score", SmallIntType())) ===
      "Cannot change column 'score' of table db.t from INT to SMALLINT: only widening (int to bigint, float to double, " +
      "larger decimal precision, longer varchar) is allowed")
    assert(rejected(UpdateColumnType("name", IntType())) ===
      "Cannot change column 'name' of table db.t from STRING to INT: only widening (int to bigint, float to double, " +
      "larger decimal precision, longer varchar) is allowed")
    assert(rejected(UpdateColumnType("price", DecimalType(10, 3))) ===
      "Cannot change column 'price' of table db.t from DECIMAL(10, 2) to DECIMAL(10, 3): only widening (int to bigint, " +
      "float to double, larger decimal precision, longer varchar) is allowed")
    assert(rejected(UpdateColumnType("dt", TimestampType())) === "Cannot change the type of partition column 'dt' of table db.t")
    assert(rejected(UpdateColumnType("id", DecimalType(38, 0))) ===
      "Cannot change the type of primary-key column 'id' of table db.t")
    assert(rejected(UpdateColumnType("nope", IntType())) === "Column 'nope' does not exist in table db.t")
  }

  test("nullability: relaxing is allowed, tightening is not, primary keys stay NOT NULL") {
    val s = evolve(UpdateColumnNullability("score", true))
    assert(s.field("score").get.dataType === IntType())
    val strict = SchemaEvolution(pkTable.copy(fields = pkTable.fields :+ DataField(8, "nn", IntType(nullable = false)),
        highestFieldId = 8), Seq(UpdateColumnNullability("nn", true)), "db.t", 1L)
    assert(strict.field("nn").get.dataType === IntType())
    assert(rejected(UpdateColumnNullability("score", false)) ===
      "Cannot make column 'score' of table db.t NOT NULL: existing rows may hold nulls")
    assert(rejected(UpdateColumnNullability("id", true)) === "Primary-key column 'id' of table db.t must stay NOT NULL")
    assert(evolve(UpdateColumnNullability("id", false)).field("id").get.dataType === BigIntType(nullable = false))
  }

  test("column comments") {
    assert(evolve(UpdateColumnComment("score", Some("pts"))).field("score").get.description === Some("pts"))
    assert(evolve(UpdateColumnComment("name", None)).field("name").get.description === None)
    assert(rejected(UpdateColumnComment("nope", None)) === "Column 'nope' does not exist in table db.t")
  }

  test("a rejected change list leaves nothing half-applied") {
    val before = pkTable.copy()
    rejected(AddColumn("z", IntType(), None), DropColumn("dt"))
    assert(pkTable === before)
  }

  test("canWiden table") {
    val cases: Seq[(DataType, DataType, Boolean)] = Seq(
      (IntType(), IntType(nullable = false), true), (TinyIntType(), SmallIntType(), true), (TinyIntType(), BigIntType(), true),
      (SmallIntType(), IntType(), true), (IntType(), BigIntType(), true), (BigIntType(), IntType(), false),
      (IntType(), SmallIntType(), false), (SmallIntType(), TinyIntType(), false), (FloatType(), DoubleType(), true),
      (DoubleType(), FloatType(), false), (IntType(), DoubleType(), true), (TinyIntType(), DoubleType(), true),
      (BigIntType(), DoubleType(), false), (IntType(), FloatType(), false), (DecimalType(10, 2), DecimalType(12, 2), true),
      (DecimalType(10, 2), DecimalType(12, 4), true), (DecimalType(10, 2), DecimalType(11, 3), true),
      (DecimalType(10, 2), DecimalType(10, 3), false), (DecimalType(10, 2), DecimalType(12, 1), false),
      (DecimalType(10, 2), DecimalType(9, 2), false), (DecimalType(10, 2), DoubleType(), false),
      (TinyIntType(), DecimalType(3, 0), true), (TinyIntType(), DecimalType(2, 0), false),
      (SmallIntType(), DecimalType(5, 0), true), (IntType(), DecimalType(10, 0), true), (IntType(), DecimalType(12, 3), false),
      (IntType(), DecimalType(13, 3), true), (BigIntType(), DecimalType(19, 0), true), (BigIntType(), DecimalType(18, 0), false),
      (VarCharType(10), VarCharType(20), true), (VarCharType(10), VarCharType.string(), true),
      (VarCharType(10), VarCharType(5), false), (CharType(3), VarCharType(3), true), (CharType(3), VarCharType(2), false),
      (VarCharType(3), CharType(3), false), (IntType(), VarCharType.string(), false), (VarCharType.string(), IntType(), false),
      (DateType(), TimestampType(), false), (TimestampType(3), TimestampType(6), false), (BooleanType(), IntType(), false),
      (RowType(Seq(DataField(1, "a", IntType()))), RowType(Seq(DataField(1, "a", IntType())), nullable = false), true),
      (RowType(Seq(DataField(1, "a", IntType()))), RowType(Seq(DataField(1, "a", BigIntType()))), false))
    for ((from, to, ok) <- cases)
      assert(SchemaEvolution.canWiden(from, to) === ok, s"${from.asSQLString} -> ${to.asSQLString}")
  }

  test("a column moves first or after another, keeping its id, type and comment") {
    val first = evolve(MoveColumn("name", None))
    assert(first.fields.map(_.name) === Seq("name", "id", "dt", "score", "price", "tag", "r"))
    assert(first.fields.head === pkTable.fields(2))
    assert(evolve(MoveColumn("id", Some("tag"))).fields.map(_.name) === Seq("dt", "name", "score", "price", "tag", "id", "r"))
    assert(evolve(MoveColumn("r", Some("id"))).fields.map(f => f.id) === Seq(0, 6, 1, 2, 3, 4, 5))
    assert(rejected(MoveColumn("score", Some("score"))).contains("after itself"))
    assert(rejected(MoveColumn("nope", None)).contains("'nope'"))
    assert(rejected(MoveColumn("score", Some("nope"))).contains("'nope'"))
  }
}
