"""Seeded property test: random histories of INSERT, DELETE, UPDATE, MERGE and compactions on append
tables (unpartitioned, partitioned, fixed-bucket) with deletion vectors, and on one without (copy-on-write),
compared after every statement with an in-memory model (a multiset of rows: keys repeat, as append tables
allow); earlier snapshots read as they were (time travel), and pypaimon reads the same rows."""

import random

import pytest

from _support import latest_snapshot_id, sql_rows

CAT = "lamina"

KINDS = {
    "unpartitioned": "",
    "partitioned": "PARTITIONED BY (p)",
    "bucketed": "",
}

CASES = [("unpartitioned", True), ("partitioned", True), ("bucketed", True), ("partitioned", False)]


def _pypaimon_rows(catalog, db):
    table = catalog.get_table(f"{db}.t")
    builder = table.new_read_builder()
    rows = builder.new_read().to_arrow(builder.new_scan().plan().splits()).to_pylist()
    return sorted((r["id"], r["k"], r["v"], r["p"]) for r in rows)


def _in(keys):
    return ", ".join(map(str, keys))


@pytest.mark.parametrize("kind, dv", CASES, ids=[f"{k}{'-dv' if dv else ''}" for k, dv in CASES])
def test_random_histories_match_the_model(spark, warehouse, db, paimon_catalog, kind, dv):
    rnd = random.Random(20261126 + len(kind) + (3 if dv else 0))
    name = f"{CAT}.{db}.t"
    props = {"compaction.min.file-num": "3"}
    if kind == "bucketed":
        props.update({"bucket": "2", "bucket-key": "id"})
    if dv:
        props["deletion-vectors.enabled"] = "true"
    spark.sql(f"CREATE TABLE {name} (id INT, k INT, v STRING, p STRING) {KINDS[kind]} "
              f"TBLPROPERTIES ({', '.join(f'{a!r} = {b!r}' for a, b in props.items())})")
    rows = []  # (id, k, v, p); ids are unique, keys repeat
    history = {}  # snapshot id -> rows
    next_id = 0
    for step in range(16):
        roll = rnd.random()
        keys = rnd.sample(range(12), 3)
        if step > 0 and roll < 0.2:
            spark.sql(f"DELETE FROM {name} WHERE k IN ({_in(keys)})")
            rows = [r for r in rows if r[1] not in keys]
        elif step > 0 and roll < 0.3:
            m = rnd.choice([2, 3, 5])
            spark.sql(f"DELETE FROM {name} WHERE id % {m} = {step % m} AND p <> 'c'")
            rows = [r for r in rows if not (r[0] % m == step % m and r[3] != "c")]
        elif step > 0 and roll < 0.5:
            spark.sql(f"UPDATE {name} SET v = 'u{step}' WHERE k IN ({_in(keys)})")
            rows = [(i, k, f"u{step}" if k in keys else v, p) for i, k, v, p in rows]
        elif step > 0 and roll < 0.65:
            # MERGE: each source key deletes or updates the rows of its key, or comes in as one new row
            ops = {k: rnd.choice(["D", "U"]) for k in keys}
            source = " UNION ALL ".join(f"SELECT {k} AS k, '{op}' AS op, {next_id + j} AS id"
                                        for j, (k, op) in enumerate(ops.items()))
            spark.sql(f"MERGE INTO {name} t USING ({source}) s ON t.k = s.k "
                      f"WHEN MATCHED AND s.op = 'D' THEN DELETE WHEN MATCHED THEN UPDATE SET v = 'm{step}' "
                      f"WHEN NOT MATCHED THEN INSERT (id, k, v, p) VALUES (s.id, s.k, 'n{step}', 'b')")
            present = {r[1] for r in rows}
            rows = [(i, k, f"m{step}" if ops.get(k) == "U" else v, p) for i, k, v, p in rows if ops.get(k) != "D"]
            rows += [(next_id + j, k, f"n{step}", "b") for j, k in enumerate(ops) if k not in present]
            next_id += len(ops)
        elif step > 0 and roll < 0.75:
            strategy = rnd.choice(["minor", "full"])
            spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => '{strategy}')")
        else:
            batch = [(next_id + j, rnd.randint(0, 11), f"v{step}", rnd.choice("abc")) for j in range(rnd.randint(1, 12))]
            next_id += len(batch)
            values = ", ".join(f"({i}, {k}, '{v}', '{p}')" for i, k, v, p in batch)
            spark.sql(f"INSERT INTO {name} VALUES {values}")
            rows += batch
        assert sorted(sql_rows(spark, f"SELECT id, k, v, p FROM {name}")) == sorted(rows), step
        if rows or history:
            history[latest_snapshot_id(warehouse, db, "t")] = sorted(rows)
        if step % 4 == 3:
            assert _pypaimon_rows(paimon_catalog, db) == sorted(rows), step
            then = rnd.choice(sorted(history))
            assert sorted(sql_rows(spark, f"SELECT id, k, v, p FROM {name} VERSION AS OF {then}")) == history[then]
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'full')")
    assert sorted(sql_rows(spark, f"SELECT id, k, v, p FROM {name}")) == sorted(rows)
    assert _pypaimon_rows(paimon_catalog, db) == sorted(rows)
    assert sql_rows(spark, f"SELECT count(*) FROM {CAT}.{db}.`t$files` WHERE deletion_vector_cardinality > 0") == [(0,)]
