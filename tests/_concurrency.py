"""The operations of one writer of the concurrency suite, and the model of what they leave.

Writer `w` of `n` owns the keys k with k % n == w below KEYS: only it changes them, so whatever the
others do, its keys end as the operations it saw commit say. On primary-key tables every writer's
inserts also upsert a few SHARED keys, which all writers race on: each such key must end as one row
holding a value that some committed operation wrote. The same seed gives the same operations in the
writer process (`python _concurrency.py ...`, which runs them and prints one JSON line per operation
with how it ended) and in the test (which replays the committed ones on the model).

Outcomes: `committed`; `post-commit` (committed, its follow-up compaction failed: applied, visible
after a compaction); `conflict` (a CommitConflictException: nothing committed)."""

import json
import random
import sys

KEYS = 400
SHARED = list(range(10_000, 10_008))


def operations(writer: int, writers: int, count: int, seed: int, primary_key: bool):
    """[(kind, keys, value)] for one writer; `keys` are the ones the statement names."""
    rng = random.Random(f"{seed}-{writer}")
    own = [k for k in range(KEYS) if k % writers == writer]
    ops = []
    for i in range(count):
        kind = rng.choice(["insert", "insert", "update", "delete", "merge"])
        keys = sorted(rng.sample(own, min(len(own), rng.randint(3, 12))))
        if kind == "insert" and primary_key:
            keys = keys + sorted(rng.sample(SHARED, 2))
        ops.append((kind, keys, f"w{writer}-{i}"))
    return ops


def statement(table: str, op, primary_key: bool, present=None) -> str:
    kind, keys, value = op
    in_list = ", ".join(map(str, keys))
    if kind == "insert":
        if not primary_key:  # an append table: only keys the writer does not hold yet, so rows stay unique
            keys = [k for k in keys if k not in present]
            if not keys:
                return ""
        return f"INSERT INTO {table} VALUES " + ", ".join(f"({k}, '{value}')" for k in keys)
    if kind == "update":
        return f"UPDATE {table} SET v = '{value}' WHERE k IN ({in_list})"
    if kind == "delete":
        return f"DELETE FROM {table} WHERE k IN ({in_list})"
    rows = ", ".join(f"({k}, '{value}')" for k in keys)
    return (f"MERGE INTO {table} t USING (SELECT * FROM VALUES {rows} AS s(k, v)) s ON t.k = s.k "
            "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k, s.v)")


def apply(state: dict, op, primary_key: bool) -> None:
    """The effect of a committed operation on the writer's own keys (`state`: key -> value)."""
    kind, keys, value = op
    own = [k for k in keys if k not in SHARED]
    if kind == "insert":
        for k in own:
            if primary_key or k not in state:
                state[k] = value
    elif kind == "update":
        for k in own:
            if k in state:
                state[k] = value
    elif kind == "delete":
        for k in own:
            state.pop(k, None)
    else:
        for k in own:
            state[k] = value


def main(warehouse, table, writer, writers, count, seed, primary_key):
    from pyspark.sql import SparkSession

    import lamina

    builder = (SparkSession.builder.master("local[1]").appName(f"lamina-concurrency-w{writer}")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1"))
    spark = lamina.configure(builder, warehouse=warehouse).getOrCreate()
    spark.sparkContext.setLogLevel("OFF")
    state = {}
    try:
        for i, op in enumerate(operations(writer, writers, count, seed, primary_key)):
            sql = statement(f"lamina.{table}", op, primary_key, state)
            if not sql:
                outcome = "skipped"
            else:
                try:
                    spark.sql(sql).collect()
                    outcome = "committed"
                except lamina.PostCommitFailureException:
                    outcome = "post-commit"
                except lamina.CommitConflictException:
                    outcome = "conflict"
            if outcome in ("committed", "post-commit"):
                apply(state, op, primary_key)
            print(json.dumps({"op": i, "outcome": outcome}), flush=True)
    finally:
        spark.stop()


if __name__ == "__main__":
    w, t, i, n, c, s, pk = sys.argv[1:]
    main(w, t, int(i), int(n), int(c), int(s), pk == "pk")
