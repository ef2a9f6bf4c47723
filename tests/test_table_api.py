"""The Python table API (`lamina.LaminaTable`): each method gives what its SQL statement gives, checks
its arguments naming the wrong one, and reaches the JVM in one call."""

import datetime
import time

import pytest

import lamina
from lamina import LaminaTable
from _support import error_text, sql_rows
import _table_api_scenarios as scenarios

CAT = "lamina"


@pytest.fixture
def twins(spark, db):
    """Two equal primary-key tables: `sql` changed through SQL, `py` through the Python API."""
    for name in ("sql", "py"):
        spark.sql(f"CREATE TABLE {CAT}.{db}.{name} (id INT NOT NULL, v STRING, n INT) "
                  "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
        spark.sql(f"INSERT INTO {CAT}.{db}.{name} VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30), (4, 'd', 40)")
    return f"{CAT}.{db}.sql", LaminaTable.for_name(spark, f"{db}.py")


def _same(spark, sql_table, py_table):
    expected = sql_rows(spark, f"SELECT * FROM {sql_table}")
    assert sql_rows(spark, f"SELECT * FROM {py_table.name}") == expected
    return expected


def test_delete_update_merge_give_what_sql_gives(spark, twins):
    sql_table, t = twins
    spark.sql(f"DELETE FROM {sql_table} WHERE n > 35")
    t.delete("n > 35")
    assert _same(spark, sql_table, t) == [(1, "a", 10), (2, "b", 20), (3, "c", 30)]
    spark.sql(f"UPDATE {sql_table} SET v = upper(v), n = n + 1 WHERE id < 3")
    t.update("id < 3", {"v": "upper(v)", "n": "n + 1"})
    assert _same(spark, sql_table, t) == [(1, "A", 11), (2, "B", 21), (3, "c", 30)]
    changes = spark.createDataFrame([(1, "x", 0, "D"), (2, "y", 5, "U"), (9, "z", 90, "I"), (8, "gone", 80, "D")],
                                    "id INT, v STRING, n INT, op STRING")
    changes.createOrReplaceTempView("changes")
    spark.sql(f"MERGE INTO {sql_table} t USING changes s ON t.id = s.id "
              "WHEN MATCHED AND s.op = 'D' THEN DELETE "
              "WHEN MATCHED THEN UPDATE SET v = s.v, n = t.n + s.n "
              "WHEN NOT MATCHED AND s.op != 'D' THEN INSERT (id, v, n) VALUES (s.id, s.v, s.n)")
    (t.merge(changes, "t.id = s.id")
      .when_matched_delete("s.op = 'D'")
      .when_matched_update(set={"v": "s.v", "n": "t.n + s.n"})
      .when_not_matched_insert("s.op != 'D'", values={"id": "s.id", "v": "s.v", "n": "s.n"})
      .execute())
    assert _same(spark, sql_table, t) == [(2, "y", 26), (3, "c", 30), (9, "z", 90)]
    # the whole-row forms and NOT MATCHED BY SOURCE, with other aliases
    full = spark.createDataFrame([(3, "C", 33), (7, "g", 70)], "id INT, v STRING, n INT")
    full.createOrReplaceTempView("full_rows")
    spark.sql(f"MERGE INTO {sql_table} AS tgt USING full_rows AS src ON tgt.id = src.id "
              "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT * "
              "WHEN NOT MATCHED BY SOURCE AND tgt.n > 50 THEN DELETE "
              "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET n = -1")
    (t.merge(full, "tgt.id = src.id", target_alias="tgt", source_alias="src")
      .when_matched_update_all().when_not_matched_insert_all()
      .when_not_matched_by_source_delete("tgt.n > 50")
      .when_not_matched_by_source_update(set={"n": "-1"})
      .execute())
    assert _same(spark, sql_table, t) == [(2, "y", -1), (3, "C", 33), (7, "g", 70)]
    # no temporary view is left behind
    assert not [v for v in spark.catalog.listTables() if v.name.startswith("lamina_merge_source_")]


def test_reads_history_detail_and_options(spark, db, warehouse):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (1, 'a')")
    t = LaminaTable.for_name(spark, f"{db}.t")
    first = t.history().collect()
    time.sleep(0.05)
    between = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    time.sleep(0.05)
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (2, 'b')")
    assert sorted(r.id for r in t.to_df().collect()) == [1, 2]
    v1 = min(r.snapshot_id for r in first)
    assert [tuple(r) for r in t.to_df(version=v1).collect()] == [(1, "a")]
    assert sorted(r.id for r in t.to_df(timestamp=between).collect()) == [1]
    assert sql_rows(spark, f"SELECT id FROM {CAT}.{db}.t VERSION AS OF {v1}") == [(1,)]
    history = t.history()
    ids = [r.snapshot_id for r in history.collect()]
    assert ids == sorted(ids, reverse=True) and len(ids) >= 2
    assert [r.snapshot_id for r in t.history(limit=1).collect()] == ids[:1]
    assert [r.schema_id for r in t.schema_history().collect()] == [0]
    d = t.detail().collect()[0].asDict()
    assert d["name"] == f"{CAT}.{db}.t" and d["primary_keys"] == "id" and d["bucket"] == 1
    assert d["merge_engine"] == "deduplicate" and d["file_format"] == "parquet"
    assert d["latest_snapshot_id"] == ids[0] and d["num_files"] >= 1 and d["size_in_bytes"] > 0
    assert d["location"].endswith(f"{db}.db/t")
    t.set_options({"write-only": True, "owner.team": "ads"})
    assert t.options()["write-only"] == "true" and t.options()["owner.team"] == "ads"
    assert sql_rows(spark, f"SELECT value FROM {CAT}.{db}.`t$options` WHERE key = 'write-only'") == [("true",)]
    t.unset_options(["write-only"])
    assert "write-only" not in t.options()
    compacted = t.compact(full=True).collect()[0]
    assert compacted.num_snapshots == 1 and compacted.operation == "COMPACT" and compacted.num_removed_files >= 1


def test_finding_tables(spark, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT)")
    assert LaminaTable.is_lamina_table(spark, f"{db}.t")
    assert not LaminaTable.is_lamina_table(spark, f"{db}.missing")
    with pytest.raises(lamina.NotFoundException) as excinfo:
        LaminaTable.for_name(spark, f"{db}.missing")
    assert f"{db}.missing" in error_text(excinfo)
    assert repr(LaminaTable.for_name(spark, f"{db}.t")) == f"LaminaTable({CAT}.{db}.t)"


@pytest.mark.parametrize("call,argument", [
    (lambda spark, t: LaminaTable.for_name(spark, "a.b.c.d"), "name"),
    (lambda spark, t: LaminaTable.for_name(spark, "a.b", catalog=""), "catalog"),
    (lambda spark, t: t.to_df(version=0), "version"),
    (lambda spark, t: t.to_df(version=1, tag="x"), "at most one of version"),
    (lambda spark, t: t.to_df(tag="12"), "tag"),
    (lambda spark, t: t.to_df(branch="12"), "branch"),
    (lambda spark, t: t.create_branch("main"), "branch"),
    (lambda spark, t: t.create_branch("dev", tag="12"), "tag"),
    (lambda spark, t: t.delete_branch(""), "branch"),
    (lambda spark, t: t.history(limit=0), "limit"),
    (lambda spark, t: t.read_changes(0, 2), "start"),
    (lambda spark, t: t.read_changes(1, "7"), "end"),
    (lambda spark, t: t.read_changes(1, 2, scan_mode="all"), "scan_mode"),
    (lambda spark, t: t.delete(""), "condition"),
    (lambda spark, t: t.update("id = 1", {}), "set"),
    (lambda spark, t: t.update("id = 1", {"v": object()}), "set['v']"),
    (lambda spark, t: t.update(3, {"v": "'x'"}), "condition"),
    (lambda spark, t: t.set_options({}), "options"),
    (lambda spark, t: t.unset_options("write-only"), "keys"),
    (lambda spark, t: t.merge([1], "t.id = s.id"), "source"),
    (lambda spark, t: t.merge(spark.range(1), "t.id = s.id", target_alias="a b"), "target_alias"),
    (lambda spark, t: t.merge(spark.range(1), "t.id = s.id").execute(), "when_"),
    (lambda spark, t: t.merge(spark.range(1), "t.id = s.id").when_matched_update(set={"v": object()}), "set['v']"),
])
def test_bad_arguments_are_named(spark, db, call, argument):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    t = LaminaTable.for_name(spark, f"{db}.t")
    with pytest.raises(ValueError) as excinfo:
        call(spark, t)
    assert argument in str(excinfo.value)


def test_java_errors_keep_their_classes(spark, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    t = LaminaTable.for_name(spark, f"{db}.t")
    with pytest.raises(lamina.BadInputException) as excinfo:
        t.set_options({"bucket-kye": "2"})
    assert "bucket-kye" in error_text(excinfo)
    with pytest.raises(lamina.NotFoundException):
        t.to_df(version=999).collect()


def test_python_api_page_is_current():
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("python_doc", root / "tools" / "python_doc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (root / "docs" / "python.md").read_text() == module.render(), "run `make docs`"


def test_create_builders_give_what_create_table_gives(spark, db):
    t = (LaminaTable.create(spark, f"{db}.orders")
         .add_column("id", "BIGINT", nullable=False, comment="order id")
         .add_column("status", "STRING")
         .add_column("day", "DATE", nullable=False)
         .primary_key("id", "day").partitioned_by("day")
         .property("bucket", 2).property("write-only", True)
         .comment("orders of the shop")
         .execute())
    spark.sql(f"CREATE TABLE {CAT}.{db}.twin (id BIGINT NOT NULL COMMENT 'order id', status STRING, day DATE NOT NULL) "
              "PARTITIONED BY (day) COMMENT 'orders of the shop' "
              "TBLPROPERTIES ('primary-key' = 'id,day', 'bucket' = '2', 'write-only' = 'true')")
    a = spark.sql(f"DESCRIBE TABLE EXTENDED {t.name}").collect()
    b = spark.sql(f"DESCRIBE TABLE EXTENDED {CAT}.{db}.twin").collect()
    strip = lambda rows: [(r.col_name, r.data_type.replace("twin", "orders"), r.comment) for r in rows
                          if r.col_name not in ("Location", "Name", "Table")]
    assert strip(a) == strip(b)
    assert t.options() == LaminaTable.for_name(spark, f"{db}.twin").options()
    with pytest.raises(lamina.AlreadyExistsException):
        LaminaTable.create(spark, f"{db}.orders").add_column("id", "INT").execute()
    again = LaminaTable.create_if_not_exists(spark, f"{db}.orders").add_column("x", "INT").execute()
    assert [f.name for f in again.to_df().schema.fields] == ["id", "status", "day"]
    spark.sql(f"INSERT INTO {t.name} VALUES (1, 'open', DATE'2024-01-01')")
    replaced = LaminaTable.create_or_replace(spark, f"{db}.orders").add_column("x", "INT").property("file.format", "orc").execute()
    assert [f.name for f in replaced.to_df().schema.fields] == ["x"]
    assert replaced.to_df().count() == 0 and replaced.history().count() == 0
    fresh = LaminaTable.create_or_replace(spark, f"{db}.fresh").add_column("y", "STRING").execute()
    assert [f.name for f in fresh.to_df().schema.fields] == ["y"]
    with pytest.raises(lamina.BadInputException) as excinfo:
        LaminaTable.create(spark, f"{db}.bad").add_column("x", "NOT_A_TYPE").execute()
    assert "'x'" in error_text(excinfo)
    with pytest.raises(ValueError) as excinfo:
        LaminaTable.create(spark, f"{db}.bad").execute()
    assert "add_column" in str(excinfo.value)


def test_tags_rollback_and_expiration_give_what_the_procedures_give(spark, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1', 'write-only' = 'true')")
    t = LaminaTable.for_name(spark, f"{db}.t")
    for i in range(1, 5):
        spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES ({i}, 'v{i}')")
    ids = sorted(r.snapshot_id for r in t.history().collect())
    assert t.create_tag("first", snapshot_id=ids[0]) == ids[0]
    assert t.create_tag("latest") == ids[-1]
    assert sorted(r.tag_name for r in t.tags().collect()) == ["first", "latest"]
    assert [tuple(r) for r in t.to_df(tag="first").collect()] == [(1, "v1")]
    assert t.expire_snapshots(retain_max=1, retain_min=1) == len(ids) - 1
    # the tag keeps its snapshot's rows readable after the snapshot expired
    assert [tuple(r) for r in t.to_df(tag="first").collect()] == [(1, "v1")]
    t.delete_tag("latest")
    assert [r.tag_name for r in t.tags().collect()] == ["first"]
    spark.sql(f"INSERT INTO {CAT}.{db}.t VALUES (9, 'v9')")
    assert t.rollback_to(tag="first") == ids[0]
    assert sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t") == [(1, "v1")]
    with pytest.raises(ValueError) as excinfo:
        t.rollback_to(version=1, tag="first")
    assert "exactly one of version, tag and timestamp" in str(excinfo.value)
    with pytest.raises(ValueError) as excinfo:
        t.create_tag("7")
    assert "tag" in str(excinfo.value)
    with pytest.raises(ValueError) as excinfo:
        t.expire_snapshots(retain_max=0)
    assert "retain_max" in str(excinfo.value)


def test_read_changes_gives_what_the_incremental_read_gives(spark, db):
    name = f"{CAT}.{db}.c"
    spark.sql(f"CREATE TABLE {name} (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', "
              "'changelog-producer' = 'input')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {name} VALUES (2, 'B'), (3, 'c')")
    spark.sql(f"DELETE FROM {name} WHERE id = 1")
    t = LaminaTable.for_name(spark, f"{db}.c")
    latest = max(r.snapshot_id for r in t.history().collect())
    spark.sql(f"CALL {CAT}.sys.create_tag(table => '{db}.c', tag => 'end', snapshot_id => {latest})")
    changes = sorted(tuple(r) for r in t.read_changes(1, "end").collect())
    sql = sorted(tuple(r) for r in spark.read.option("incremental-between", f"1,{latest}")
                 .table(f"{CAT}.{db}.`c$audit_log`").collect())
    assert changes == sql
    assert ("+I", 3, "c") in changes and any(k == "-D" and i == 1 for k, i, _ in changes)
    assert {r[2] for r in changes if r[1] == 2} <= {"b", "B"}


def test_names_in_one_two_or_three_parts_and_back(spark, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.`my-table` (id INT)")
    spark.sql(f"INSERT INTO {CAT}.{db}.`my-table` VALUES (1)")
    for name in (f"{db}.my-table", f"{db}.`my-table`", f"{CAT}.{db}.`my-table`", f"`{CAT}`.{db}.my-table"):
        t = LaminaTable.for_name(spark, name)
        assert t.name == f"{CAT}.{db}.`my-table`"
        assert LaminaTable.for_name(spark, t.name).to_df().collect()[0][0] == 1
        assert sql_rows(spark, f"SELECT * FROM {t.name}") == [(1,)]
    assert LaminaTable.is_lamina_table(spark, f"{CAT}.{db}.my-table")
    assert not LaminaTable.is_lamina_table(spark, f"{db}.other")
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {CAT}.default")
    LaminaTable.create_or_replace(spark, "one_part").add_column("id", "INT").execute()
    try:
        assert LaminaTable.for_name(spark, "one_part").name == f"{CAT}.default.one_part"
    finally:
        spark.sql(f"DROP TABLE {CAT}.default.one_part")
    for bad, needle in (("a.b.c.d", "one, two or three parts"), ("db..t", "empty name part"),
                        ("db.`t", "unclosed backquote"), ("`a.b`.t", "must not hold dots"), (7, "table name string")):
        with pytest.raises(ValueError, match=needle):
            LaminaTable.for_name(spark, bad)


def test_aliases_name_the_table_and_the_source_of_a_merge(spark, twins):
    sql_table, t = twins
    changes = spark.createDataFrame([(1, "x", 1), (7, "new", 70)], "id INT, v STRING, n INT")
    changes.createOrReplaceTempView("aliased_changes")
    spark.sql(f"MERGE INTO {sql_table} o USING aliased_changes c ON o.id = c.id "
              "WHEN MATCHED AND c.n < 5 THEN UPDATE SET v = c.v WHEN NOT MATCHED THEN INSERT *")
    (t.alias("o").merge(changes.alias("c"), "o.id = c.id")
      .when_matched_update("c.n < 5", {"v": "c.v"})
      .when_not_matched_insert_all()
      .execute())
    assert _same(spark, sql_table, t) == [(1, "x", 10), (2, "b", 20), (3, "c", 30), (4, "d", 40), (7, "new", 70)]
    assert t.name == t.alias("o").name  # the alias names the table in a merge only
    with pytest.raises(ValueError, match="name must be a plain identifier"):
        t.alias("a b")


def test_for_path_finds_the_catalog_whose_warehouse_holds_the_table(spark, warehouse, db, tmp_path):
    from _support import table_path

    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT)")
    for path in (table_path(warehouse, db, "t"), f"file:{table_path(warehouse, db, 't')}/"):
        assert LaminaTable.for_path(spark, path).name == f"{CAT}.{db}.t"
    with pytest.raises(lamina.NotFoundException):
        LaminaTable.for_path(spark, table_path(warehouse, db, "nope"))
    with pytest.raises(ValueError, match=f"is not <warehouse>/<database>.db/<table> of a Lamina catalog.*{CAT}: "):
        LaminaTable.for_path(spark, tmp_path / "elsewhere")
    with pytest.raises(ValueError, match="is not <warehouse>/<database>.db/<table>"):
        LaminaTable.for_path(spark, table_path(warehouse, db, "t") / "bucket-0")


def test_add_columns_from_a_schema_or_ddl(spark, db):
    from pyspark.sql.types import DecimalType, LongType, StringType, StructField, StructType

    source = StructType([StructField("id", LongType(), False), StructField("note", StringType(), True,
                                                                           {"comment": "it's free"})])
    t = LaminaTable.create(spark, f"{db}.cols").add_columns(source).primary_key("id").property("bucket", 1).execute()
    t.add_columns(StructType([StructField("price", DecimalType(10, 2))]))
    t.add_columns("tags ARRAY<STRING>, `odd name` INT COMMENT 'x'")
    described = [tuple(r) for r in spark.sql(f"DESCRIBE TABLE {t.name}").collect()]
    assert [(r[0], r[1]) for r in described[:5]] == [("id", "bigint"), ("note", "string"), ("price", "decimal(10,2)"),
                                                     ("tags", "array<string>"), ("odd name", "int")]
    assert described[1][2] == "it's free"
    assert spark.table(t.name).schema["id"].nullable is False
    with pytest.raises(ValueError, match="schema: 'id id id' is not a list of columns"):
        t.add_columns("id id id")
    with pytest.raises(ValueError, match="schema must be a StructType with fields"):
        t.add_columns(StructType([]))


def test_timestamps_are_read_in_the_session_time_zone(spark, db):
    from zoneinfo import ZoneInfo

    spark.sql(f"CREATE TABLE {CAT}.{db}.tz (id INT)")
    t = LaminaTable.for_name(spark, f"{db}.tz")
    spark.sql(f"INSERT INTO {CAT}.{db}.tz VALUES (1)")
    time.sleep(0.05)
    between = datetime.datetime.now(datetime.timezone.utc)
    time.sleep(0.05)
    spark.sql(f"INSERT INTO {CAT}.{db}.tz VALUES (2)")
    before = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        local = between.astimezone(ZoneInfo("America/Los_Angeles")).replace(tzinfo=None)
        for given in (between, local, local.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]):
            assert t.to_df(timestamp=given).count() == 1, given
        # the same wall-clock time read in another zone is another instant: here, after both commits
        assert t.to_df(timestamp=between.replace(tzinfo=None)).count() == 2
        assert t.rollback_to(timestamp=local) == 1
    finally:
        spark.conf.set("spark.sql.session.timeZone", before)


def test_columns_and_metrics(spark, db):
    scenarios.columns_and_metrics(spark, CAT, db)


def test_maintenance_through_procedures(spark, db):
    scenarios.maintenance(spark, CAT, db)


def test_upsert_stream_compact_expire(spark, db):
    scenarios.upsert_stream_compact_expire(spark, CAT, db)


def test_restore_is_a_new_commit(spark, db):
    scenarios.restore(spark, CAT, db)
