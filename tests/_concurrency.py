"""The operations of one writer of the concurrency suite, and the model of what they leave.

Writer `w` of `n` owns the keys k with k % n == w below KEYS: only it changes them, so whatever the
others do, its keys end as the operations it saw commit say. On primary-key tables every writer's
inserts also upsert a few SHARED keys, which all writers race on: each such key must end as one row
holding a value that some committed operation wrote. The same seed gives the same operations in the
writer process (`python _concurrency.py ...`, which runs them and prints one JSON line per operation
with how it ended) and in the test (which replays the committed ones on the model: `expected`, then
`check`). `python _concurrency.py compactor ...` compacts the table meanwhile.

Outcomes: `committed`; `post-commit` (committed, its follow-up compaction failed: applied, visible
after a compaction); `conflict` (a CommitConflictException, a commit lock not acquired in time among
them: nothing committed).

The catalog is the filesystem metastore on `warehouse` unless an eighth argument, a JSON object of
`lamina.configure`'s metastore arguments, says otherwise, for example
`{"metastore": "jdbc", "uri": "jdbc:sqlite:/x.db", "catalog_options": {"lock.enabled": "true"}}`; its
`spark_conf`, if any, are further settings of the writer's session (the S3A class path)."""

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


def expected(outputs, writers: int, count: int, seed: int, primary_key: bool):
    """What the writers' outputs (one stdout text each) say the table must hold: (own key -> value,
    shared key -> the values committed inserts wrote to it, outcome -> how many operations ended so)."""
    rows, shared_values, outcomes = {}, {}, {}
    for w, out in enumerate(outputs):
        lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        assert [line["op"] for line in lines] == list(range(count)), f"writer {w} did not report every operation"
        state = {}
        for op, line in zip(operations(w, writers, count, seed, primary_key), lines):
            outcomes[line["outcome"]] = outcomes.get(line["outcome"], 0) + 1
            if line["outcome"] in ("committed", "post-commit"):
                apply(state, op, primary_key)
                if op[0] == "insert":
                    for k in op[1]:
                        if k in SHARED:
                            shared_values.setdefault(k, set()).add(op[2])
        rows.update(state)
    return rows, shared_values, outcomes


def changing_commits(outputs, writers: int, count: int, seed: int, primary_key: bool) -> int:
    """How many committed operations changed a row: each makes one snapshot (an UPDATE or DELETE whose
    keys the writer does not hold makes none). Only the writer changes its own keys, so its model says."""
    changing = 0
    for w, out in enumerate(outputs):
        state = {}
        outcomes = [json.loads(line)["outcome"] for line in out.splitlines() if line.startswith("{")]
        for op, outcome in zip(operations(w, writers, count, seed, primary_key), outcomes):
            if outcome == "committed":
                before = dict(state)
                apply(state, op, primary_key)
                changing += state != before
    return changing


def run_writers_and_compactor(warehouse, table, writers: int, count: int, seed: int, primary_key: bool,
                              catalog_json: str, stop) -> tuple:
    """Runs `writers` writer processes and a compactor process of this script on `table` until the
    writers are done; (each writer's output, the compactor's output). A process that failed fails the
    caller's test with the end of its error output."""
    import os
    import subprocess
    from pathlib import Path

    here = str(Path(__file__).resolve().parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])))
    script = os.path.join(here, "_concurrency.py")
    procs = [subprocess.Popen([sys.executable, script, warehouse, table, str(w), str(writers), str(count), str(seed),
                               "pk" if primary_key else "append", catalog_json],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) for w in range(writers)]
    compacting = subprocess.Popen([sys.executable, script, "compactor", warehouse, table, str(stop), catalog_json],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        outputs = [p.communicate(timeout=900) for p in procs]
    finally:
        Path(stop).touch()
        compactor_out, compactor_err = compacting.communicate(timeout=900)
    for p, (_, err) in zip(procs, outputs):
        assert p.returncode == 0, _failure(err)
    assert compacting.returncode == 0, _failure(compactor_err)
    return [out.decode() for out, _ in outputs], compactor_out.decode()


def _failure(err: bytes) -> str:
    """What a failed process printed: its exception lines (not the stack frames) and then its last lines."""
    lines = err.decode(errors="replace").splitlines()
    causes = [line for line in lines
              if ("Exception" in line or "Error" in line) and not line.lstrip().startswith("at ")]
    return "\n".join(causes[:40] + ["...", *lines[-30:]])


def check(got, rows: dict, shared_values: dict) -> None:
    """`got` ((k, v) rows read from the table) against `expected`'s model: no key twice, each writer's
    keys exactly as its committed operations leave them, each shared key one value a committed insert wrote."""
    keys = [k for k, _ in got]
    assert len(keys) == len(set(keys)), "a key is duplicated"
    own = sorted((k, v) for k, v in got if k not in SHARED)
    assert own == sorted(rows.items()), "rows lost or resurrected"
    for k, v in got:
        if k in SHARED:
            assert v in shared_values.get(k, set()), (k, v)
    assert {k for k in keys if k in SHARED} == set(shared_values)


def _session(name, warehouse, catalog):
    from pyspark.sql import SparkSession

    import lamina

    builder = (SparkSession.builder.master("local[1]").appName(name)
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1"))
    catalog = dict(catalog or {})
    for key, value in catalog.pop("spark_conf", {}).items():
        builder = builder.config(key, value)
    spark = lamina.configure(builder, warehouse=warehouse, **catalog).getOrCreate()
    spark.sparkContext.setLogLevel("OFF")
    return spark


def compactor(warehouse, table, stop, catalog=None):
    """Compacts `table` in a loop, full and minor in turn, until the file `stop` exists; prints
    `compacted` or `conflict` for each attempt."""
    import os
    import time

    import lamina

    spark = _session("lamina-concurrency-compactor", warehouse, catalog)
    n = 0
    try:
        while not os.path.exists(stop):
            strategy = "full" if n % 2 == 0 else "minor"
            try:
                spark.sql(f"CALL lamina.sys.compact(table => '{table}', compact_strategy => '{strategy}')").collect()
                print("compacted", flush=True)
            except lamina.CommitConflictException:
                print("conflict", flush=True)
            n += 1
            time.sleep(0.2)
    finally:
        spark.stop()


def main(warehouse, table, writer, writers, count, seed, primary_key, catalog=None):
    import lamina

    spark = _session(f"lamina-concurrency-w{writer}", warehouse, catalog)
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
    if sys.argv[1] == "compactor":  # compactor WAREHOUSE TABLE STOP_FILE [CATALOG_JSON]
        compactor(*sys.argv[2:5], json.loads(sys.argv[5]) if len(sys.argv) > 5 else None)
        sys.exit(0)
    w, t, i, n, c, s, pk = sys.argv[1:8]
    main(w, t, int(i), int(n), int(c), int(s), pk == "pk", json.loads(sys.argv[8]) if len(sys.argv) > 8 else None)
