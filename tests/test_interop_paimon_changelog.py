"""Changelog shared with Apache Paimon's own Spark connector: Lamina reads and streams the changelog
that Paimon's lookup producer wrote (deduplicate, partial-update, with and without deletion vectors),
writes into those tables with its own lookup compaction, and Paimon reads Lamina's changelog back
(its incremental query). Tests skipped where the connector's jar is absent."""

import pytest

from _support import sql_rows
from paimon_connector import require_paimon, run_sql

DB = "interop_cl"
LOOKUP = "'changelog-producer' = 'lookup'"

SCRIPT = [
    f"CREATE DATABASE IF NOT EXISTS paimon.{DB}",
    f"CREATE TABLE paimon.{DB}.lk (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', {LOOKUP})",
    f"CREATE TABLE paimon.{DB}.lkdv (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', {LOOKUP}, "
    "'deletion-vectors.enabled' = 'true')",
    f"CREATE TABLE paimon.{DB}.lkp (id INT, a STRING, b INT) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', "
    f"'merge-engine' = 'partial-update', {LOOKUP})",
] + [s for t in ("lk", "lkdv") for s in (
    f"INSERT INTO paimon.{DB}.{t} VALUES (1, 'a'), (2, 'b')",
    f"INSERT INTO paimon.{DB}.{t} VALUES (1, 'a2'), (3, 'c')",
    f"DELETE FROM paimon.{DB}.{t} WHERE id = 2",
)] + [
    f"INSERT INTO paimon.{DB}.lkp VALUES (1, 'a', CAST(NULL AS INT)), (2, 'b', 7)",
    f"INSERT INTO paimon.{DB}.lkp VALUES (1, CAST(NULL AS STRING), 5)",
]

EXPECTED = {
    "lk": [("+I", 1, "a"), ("+I", 2, "b"), ("-U", 1, "a"), ("+U", 1, "a2"), ("+I", 3, "c"), ("-D", 2, "b")],
    "lkdv": [("+I", 1, "a"), ("+I", 2, "b"), ("-U", 1, "a"), ("+U", 1, "a2"), ("+I", 3, "c"), ("-D", 2, "b")],
    "lkp": [("+I", 1, "a", None), ("+I", 2, "b", 7), ("-U", 1, "a", None), ("+U", 1, "a", 5)],
}


def _changes(spark, table, start, end):
    reader = (spark.read.option("incremental-between", f"{start},{end}")
              .option("incremental-between-scan-mode", "changelog"))
    return [tuple(r) for r in reader.table(f"lamina.{DB}.`{table}$audit_log`").collect()]


def _latest(spark, table):
    return sql_rows(spark, f"SELECT max(snapshot_id) FROM lamina.{DB}.`{table}$snapshots`")[0][0]


@pytest.fixture(scope="module")
def paimon_wrote(spark, warehouse):
    require_paimon()
    run_sql(warehouse, SCRIPT)
    return warehouse


@pytest.mark.parametrize("table", sorted(EXPECTED))
def test_lamina_reads_and_streams_paimons_lookup_changelog(spark, paimon_wrote, tmp_path, table):
    assert _changes(spark, table, 0, _latest(spark, table)) == EXPECTED[table]
    # a stream of the audit log from the first snapshot carries every change, deletes too
    cols = "id INT, v STRING" if table != "lkp" else "id INT, a STRING, b INT"
    dst = f"lamina.{DB}.{table}_copy"
    spark.sql(f"CREATE TABLE {dst} (rowkind STRING, {cols}) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', "
              "'rowkind.field' = 'rowkind')")
    q = (spark.readStream.option("scan.mode", "from-snapshot").option("scan.snapshot-id", "1")
         .table(f"lamina.{DB}.`{table}$audit_log`").writeStream
         .option("checkpointLocation", str(tmp_path / table)).trigger(availableNow=True).toTable(dst))
    q.awaitTermination(120)
    assert q.exception() is None
    rest = ", ".join(c.split()[0] for c in cols.split(", ")[1:])
    assert sql_rows(spark, f"SELECT id, {rest} FROM {dst}") == sql_rows(spark, f"SELECT * FROM lamina.{DB}.{table}")


def test_paimon_reads_the_changelog_of_lamina_writes(spark, paimon_wrote):
    start = _latest(spark, "lk")
    spark.sql(f"INSERT INTO lamina.{DB}.lk VALUES (3, 'c2'), (4, 'd')")
    end = _latest(spark, "lk")
    ours = [("-U", 3, "c"), ("+U", 3, "c2"), ("+I", 4, "d")]
    assert _changes(spark, "lk", start, end) == ours
    rows, changes = run_sql(paimon_wrote, [
        f"SELECT * FROM paimon.{DB}.lk",
        f"SELECT * FROM paimon_incremental_query('paimon.{DB}.lk', {start}, {end})",
    ])
    assert sorted(map(tuple, rows)) == [(1, "a2"), (3, "c2"), (4, "d")]
    # Paimon's incremental query reads a producer's changelog files; it drops -D records only, so the -U
    # record's row (3, 'c'), which only Lamina's changelog file holds, shows
    assert sorted(map(tuple, changes)) == [(3, "c"), (3, "c2"), (4, "d")]
