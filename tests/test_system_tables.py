"""System tables `t$snapshots`, `$schemas`, `$options`, `$files`, `$manifests`, `$partitions`, and the
catalog-wide `sys.all_table_options` and `sys.catalog_options`."""

import json
import os

import pytest

from _support import data_files, error_text, read_snapshot, sql_rows, table_path

CAT = "lamina"

COLUMNS = {
    "snapshots": ["snapshot_id", "schema_id", "commit_user", "commit_identifier", "commit_kind",
                  "commit_time", "base_manifest_list", "delta_manifest_list",
                  "changelog_manifest_list", "total_record_count", "delta_record_count",
                  "changelog_record_count", "watermark", "added_files", "removed_files", "added_records",
                  "removed_records", "operation", "inserted_rows", "updated_rows", "deleted_rows",
                  "upserted_rows"],
    "schemas": ["schema_id", "fields", "partition_keys", "primary_keys", "options", "comment",
                "update_time"],
    "options": ["key", "value"],
    "files": ["partition", "bucket", "file_path", "file_format", "schema_id", "level", "record_count",
              "file_size_in_bytes", "min_key", "max_key", "null_value_counts", "min_value_stats",
              "max_value_stats", "min_sequence_number", "max_sequence_number", "creation_time",
              "deletion_vector_cardinality"],
    "manifests": ["file_name", "file_size", "num_added_files", "num_deleted_files", "schema_id"],
    "partitions": ["partition", "record_count", "file_size_in_bytes", "file_count", "last_update_time"],
}


@pytest.fixture
def table(spark, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"""CREATE TABLE {name} (id INT, v STRING, p STRING) PARTITIONED BY (p)
                  COMMENT 'sys' TBLPROPERTIES ('file.compression' = 'zstd')""")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y')")
    spark.sql(f"INSERT INTO {name} VALUES (4, NULL, 'y')")
    return name


def system(spark, db, which):
    return spark.sql(f"SELECT * FROM {CAT}.{db}.`t${which}`")


@pytest.mark.parametrize("which", sorted(COLUMNS))
def test_columns(spark, db, table, which):
    assert system(spark, db, which).columns == COLUMNS[which]


def test_snapshots(spark, warehouse, db, table):
    got = [r.asDict() for r in system(spark, db, "snapshots").orderBy("snapshot_id").collect()]
    assert [(r["snapshot_id"], r["schema_id"], r["commit_kind"], r["total_record_count"],
             r["delta_record_count"]) for r in got] == [(1, 0, "APPEND", 3, 3), (2, 0, "APPEND", 4, 1)]
    on_disk = read_snapshot(warehouse, db, "t", 2)
    assert got[1]["commit_user"] == on_disk["commitUser"]
    assert got[1]["commit_identifier"] == on_disk["commitIdentifier"]
    assert got[1]["base_manifest_list"] == on_disk["baseManifestList"]
    assert got[1]["delta_manifest_list"] == on_disk["deltaManifestList"]
    assert got[1]["commit_time"] is not None
    assert [(r["added_records"], r["removed_records"], r["removed_files"]) for r in got] == [(3, 0, 0), (1, 0, 0)]
    assert all(r["added_files"] >= 1 for r in got)


def test_snapshots_show_what_each_commit_added_and_removed(spark, db, table):
    files_before = spark.sql(f"SELECT count(*) FROM {CAT}.{db}.`t$files`").collect()[0][0]
    spark.sql(f"INSERT OVERWRITE {table} SELECT id + 10, v, p FROM {table}")
    last = system(spark, db, "snapshots").orderBy("snapshot_id").collect()[-1].asDict()
    assert last["commit_kind"] == "OVERWRITE"
    assert (last["removed_files"], last["removed_records"], last["added_records"]) == (files_before, 4, 4)


def test_snapshots_show_lamina_operations(spark, warehouse, db):
    name = f"{CAT}.{db}.ops"
    spark.sql(f"CREATE TABLE {name} (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    spark.sql(f"UPDATE {name} SET id = 10 WHERE id = 1")
    spark.sql(f"DELETE FROM {name} WHERE id = 2")
    spark.sql(f"MERGE INTO {name} t USING (SELECT 3 AS id, 'c' AS p) s ON t.id = s.id WHEN MATCHED THEN DELETE")
    spark.sql(f"INSERT OVERWRITE {name} VALUES (4, 'a')")
    spark.sql(f"ALTER TABLE {name} DROP PARTITION (p = 'a')")
    spark.sql(f"TRUNCATE TABLE {name}")
    got = sql_rows(spark, f"SELECT snapshot_id, commit_kind, operation FROM {CAT}.{db}.`ops$snapshots`")
    assert [r[1:] for r in sorted(got)] == [
        ("APPEND", "WRITE"), ("OVERWRITE", "UPDATE"), ("OVERWRITE", "DELETE"), ("OVERWRITE", "MERGE"),
        ("OVERWRITE", "OVERWRITE"), ("OVERWRITE", "DROP PARTITION"), ("OVERWRITE", "TRUNCATE")]
    # Paimon's field, which its readers carry
    assert read_snapshot(warehouse, db, "ops", 2)["properties"] == {"lamina.operation": "UPDATE"}
    assert read_snapshot(warehouse, db, "ops", 1)["properties"] == {"lamina.operation": "WRITE",
                                                                     "lamina.rows.inserted": "3"}


def test_schemas(spark, db, table):
    spark.sql(f"ALTER TABLE {table} ADD COLUMN n INT")
    got = [r.asDict() for r in system(spark, db, "schemas").orderBy("schema_id").collect()]
    assert [r["schema_id"] for r in got] == [0, 1]
    assert json.loads(got[0]["partition_keys"]) == ["p"]
    assert json.loads(got[0]["primary_keys"]) == []
    assert [f["name"] for f in json.loads(got[0]["fields"])] == ["id", "v", "p"]
    assert [f["name"] for f in json.loads(got[1]["fields"])] == ["id", "v", "p", "n"]
    assert json.loads(got[1]["options"])["file.compression"] == "zstd"
    assert got[0]["comment"] == "sys"


def test_options(spark, db, table):
    options = dict(sql_rows(spark, f"SELECT key, value FROM {CAT}.{db}.`t$options`"))
    assert options["file.compression"] == "zstd"
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('manifest.merge-min-count' = '5')")
    options = dict(sql_rows(spark, f"SELECT key, value FROM {CAT}.{db}.`t$options`"))
    assert options["manifest.merge-min-count"] == "5"


def test_files(spark, warehouse, db, table):
    got = [r.asDict() for r in system(spark, db, "files").collect()]
    on_disk = data_files(warehouse, db, "t")
    assert sorted(os.path.basename(r["file_path"]) for r in got) == sorted(os.path.basename(f) for f in on_disk)
    assert sum(r["record_count"] for r in got) == 4
    assert {r["file_format"] for r in got} == {"parquet"}
    assert {r["bucket"] for r in got} == {0}
    assert {r["schema_id"] for r in got} == {0}
    for r in got:
        local = next(f for f in on_disk if f.endswith(os.path.basename(r["file_path"])))
        assert r["file_size_in_bytes"] == (table_path(warehouse, db, "t") / local).stat().st_size
        assert ("x" in r["partition"]) == local.startswith("p=x/")


def test_manifests(spark, warehouse, db, table):
    got = [r.asDict() for r in system(spark, db, "manifests").collect()]
    assert got
    manifest_dir = table_path(warehouse, db, "t") / "manifest"
    for r in got:
        assert r["file_size"] == (manifest_dir / r["file_name"]).stat().st_size
        assert r["schema_id"] == 0
    assert sum(r["num_added_files"] for r in got) - sum(r["num_deleted_files"] for r in got) == len(
        data_files(warehouse, db, "t"))


def test_partitions(spark, warehouse, db, table):
    got = sorted((r.asDict() for r in system(spark, db, "partitions").collect()), key=lambda r: r["partition"])
    assert len(got) == 2
    assert "x" in got[0]["partition"] and "y" in got[1]["partition"]
    assert [r["record_count"] for r in got] == [2, 2]
    files = data_files(warehouse, db, "t")
    assert [r["file_count"] for r in got] == [
        sum(f.startswith("p=x/") for f in files), sum(f.startswith("p=y/") for f in files)]
    assert got[0]["file_size_in_bytes"] == sum(
        (table_path(warehouse, db, "t") / f).stat().st_size for f in files if f.startswith("p=x/"))


def test_system_table_of_missing_table_names_it(spark, db):
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"SELECT * FROM {CAT}.{db}.`nope$snapshots`").collect()
    assert "nope" in error_text(excinfo)


def test_unknown_system_table_names_it(spark, db, table):
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"SELECT * FROM {CAT}.{db}.`t$bogus`").collect()
    assert "bogus" in error_text(excinfo)


def test_all_table_options_lists_every_tables_options(spark, warehouse, db, table):
    spark.sql(f"CREATE TABLE {CAT}.{db}.u (id INT) TBLPROPERTIES ('bucket' = '2', 'bucket-key' = 'id')")
    got = spark.sql(f"SELECT * FROM {CAT}.sys.all_table_options WHERE database_name = '{db}'")
    assert got.columns == ["database_name", "table_name", "key", "value"]
    assert [tuple(r) for r in got.collect()] == [
        (db, "t", "file.compression", "zstd"), (db, "u", "bucket", "2"), (db, "u", "bucket-key", "id")]
    spark.sql(f"ALTER TABLE {CAT}.{db}.u SET TBLPROPERTIES ('target-file-size' = '64 mb')")
    assert sql_rows(spark, f"SELECT value FROM {CAT}.sys.all_table_options WHERE database_name = '{db}' "
                           f"AND table_name = 'u' AND key = 'target-file-size'") == [("64 mb",)]
    assert ("all_table_options",) in [(r.tableName,) for r in spark.sql(f"SHOW TABLES IN {CAT}.sys").collect()]


def test_catalog_options(spark, warehouse):
    got = spark.sql(f"SELECT * FROM {CAT}.sys.catalog_options")
    assert got.columns == ["key", "value"]
    assert dict(sql_rows(spark, f"SELECT key, value FROM {CAT}.sys.catalog_options"))["warehouse"] == warehouse


def test_sys_database_is_reserved(spark):
    for statement, message in [
            (f"CREATE NAMESPACE {CAT}.sys", "Cannot create schema `sys` because it already exists"),
            (f"DROP NAMESPACE {CAT}.sys", "Database 'sys' is reserved for the catalog's system tables")]:
        with pytest.raises(Exception) as excinfo:
            spark.sql(statement)
        assert message in error_text(excinfo), statement


def test_snapshots_count_the_rows_each_write_knows(spark, db):
    """`$snapshots` counts the logical rows a write inserted, updated, deleted or upserted where it knows
    them, and leaves NULL what it cannot know without reading the table."""
    def last(t):
        return sql_rows(spark, f"SELECT operation, inserted_rows, updated_rows, deleted_rows, upserted_rows "
                               f"FROM {CAT}.{db}.`{t}$snapshots` ORDER BY snapshot_id DESC LIMIT 1")[0]

    spark.sql(f"CREATE TABLE {CAT}.{db}.a (id INT, v STRING)")
    spark.sql(f"INSERT INTO {CAT}.{db}.a VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    assert last("a") == ("WRITE", 3, None, None, None)
    spark.sql(f"DELETE FROM {CAT}.{db}.a WHERE id >= 2")  # copy-on-write: the rows it dropped
    assert last("a") == ("DELETE", None, None, 2, None)
    spark.sql(f"UPDATE {CAT}.{db}.a SET v = 'x' WHERE id = 1")  # copy-on-write: not told apart
    assert last("a") == ("UPDATE", None, None, None, None)

    spark.sql(f"CREATE TABLE {CAT}.{db}.dv (id INT, v STRING) TBLPROPERTIES ('deletion-vectors.enabled' = 'true')")
    spark.sql(f"INSERT INTO {CAT}.{db}.dv VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    spark.sql(f"UPDATE {CAT}.{db}.dv SET v = 'x' WHERE id <= 2")
    assert last("dv") == ("UPDATE", 0, 2, 0, None)
    spark.sql(f"DELETE FROM {CAT}.{db}.dv WHERE id = 3")
    assert last("dv") == ("DELETE", 0, 0, 1, None)

    spark.sql(f"CREATE TABLE {CAT}.{db}.pk (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {CAT}.{db}.pk VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {CAT}.{db}.pk VALUES (2, 'B'), (3, 'c')")  # by key: new or replacing
    assert last("pk") == ("WRITE", None, None, None, 2)
    spark.sql(f"DELETE FROM {CAT}.{db}.pk WHERE v = 'a'")
    assert last("pk") == ("DELETE", 0, 0, 1, None)
    spark.createDataFrame([(3,), (9,)], "id INT").createOrReplaceTempView("gone")
    # a MERGE of deletes planned as a write: key 9 is absent, so no count is known
    spark.sql(f"MERGE INTO {CAT}.{db}.pk t USING gone s ON t.id = s.id WHEN MATCHED THEN DELETE")
    assert last("pk") == ("MERGE", None, None, None, None)
    assert sql_rows(spark, f"SELECT id FROM {CAT}.{db}.pk") == [(2,)]
