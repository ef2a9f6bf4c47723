"""`CALL sys.purge_files` (Paimon's semantics): a table emptied for good, its schema and one empty
snapshot kept: no row, data file, changelog, tag, branch or consumer is left, and writes (Lamina's and
Paimon's) go on at the next snapshot id."""

import glob

from _support import sql_rows, table_path
from lamina import LaminaTable
from paimon_connector import require_paimon, run_sql

CAT = "lamina"


def test_purge_keeps_the_schema_and_one_empty_snapshot_and_paimon_writes_on(spark, warehouse, db):
    require_paimon()
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k INT NOT NULL, v STRING, p STRING NOT NULL) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'k,p', 'bucket' = '1', 'changelog-producer' = 'input', "
              "'changelog.num-retained.min' = '1', 'changelog.num-retained.max' = '30', "
              "'snapshot.num-retained.min' = '1', 'snapshot.num-retained.max' = '2')")
    for i in range(4):
        spark.sql(f"INSERT INTO {t} VALUES ({i}, 'v{i}', 'p{i % 2}')")
    spark.sql(f"CALL {CAT}.sys.create_tag(table => '{db}.t', tag => 'keep', snapshot => 4)")
    spark.sql(f"CALL {CAT}.sys.create_branch(table => '{db}.t', branch => 'dev', tag => 'keep')")
    spark.sql(f"CALL {CAT}.sys.reset_consumer(table => '{db}.t', consumerId => 'c1', nextSnapshotId => 3)")
    path = table_path(warehouse, db, "t")
    assert glob.glob(str(path / "changelog" / "changelog-*"))

    assert sql_rows(spark, f"CALL {CAT}.sys.purge_files(table => '{db}.t')") == [("Success",)]
    assert sql_rows(spark, f"SELECT count(*) FROM {t}") == [(0,)]
    assert sql_rows(spark, f"SELECT snapshot_id, commit_kind FROM {CAT}.{db}.`t$snapshots`") == [(5, "OVERWRITE")]
    for kind in ("tags", "branches", "consumers"):
        assert sql_rows(spark, f"SELECT count(*) FROM {CAT}.{db}.`t${kind}`") == [(0,)], kind
    assert glob.glob(str(path / "**" / "*.parquet"), recursive=True) == []
    assert not (path / "changelog").exists()
    assert [c.name for c in spark.table(t).schema] == ["k", "v", "p"]

    spark.sql(f"INSERT INTO {t} VALUES (7, 'after', 'p1')")
    results = run_sql(warehouse, [f"SELECT k, v, p FROM paimon.{db}.t",
                                  f"INSERT INTO paimon.{db}.t VALUES (8, 'paimon', 'p0')"])
    assert results[0] == [[7, "after", "p1"]]
    assert sql_rows(spark, f"SELECT k, v FROM {t} ORDER BY k") == [(7, "after"), (8, "paimon")]
    # the writes after the purge took the next snapshot ids, 6 and 7
    assert sql_rows(spark, f"SELECT max(snapshot_id) FROM {CAT}.{db}.`t$snapshots`") == [(7,)]


def test_purge_of_an_append_table_through_python(spark, warehouse, db):
    t = f"{CAT}.{db}.a"
    spark.sql(f"CREATE TABLE {t} (k INT, v STRING)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"DELETE FROM {t} WHERE k = 1")
    table = LaminaTable.for_name(spark, f"{db}.a")
    assert table.purge_files() is None
    assert sql_rows(spark, f"SELECT count(*) FROM {t}") == [(0,)]
    assert sql_rows(spark, f"SELECT count(*) FROM {CAT}.{db}.`a$snapshots`") == [(1,)]
    assert glob.glob(str(table_path(warehouse, db, "a") / "**" / "*.parquet"), recursive=True) == []
