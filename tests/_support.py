"""Helpers for the end-to-end tests: exact row comparison and a look at the table's files."""

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Iterable, List

CATALOG = "lamina"


def _sort_key(row):
    # Rows may hold None and mixed types; repr orders them deterministically.
    return repr(tuple(row))


def rows(df) -> List[tuple]:
    """A DataFrame's rows as sorted plain tuples."""
    return sorted((tuple(r) for r in df.collect()), key=_sort_key)


def sql_rows(spark, query: str) -> List[tuple]:
    return rows(spark.sql(query))


def sorted_tuples(items: Iterable) -> List[tuple]:
    return sorted((tuple(i) for i in items), key=_sort_key)


def table_path(warehouse: str, db: str, table: str) -> Path:
    return Path(warehouse) / f"{db}.db" / table


def _numbered(directory: Path, prefix: str) -> List[int]:
    if not directory.is_dir():
        return []
    pattern = re.compile(rf"^{re.escape(prefix)}(\d+)$")
    return sorted(int(m.group(1)) for m in (pattern.match(f) for f in os.listdir(directory)) if m)


def snapshot_ids(warehouse: str, db: str, table: str) -> List[int]:
    return _numbered(table_path(warehouse, db, table) / "snapshot", "snapshot-")


def schema_ids(warehouse: str, db: str, table: str) -> List[int]:
    return _numbered(table_path(warehouse, db, table) / "schema", "schema-")


def latest_snapshot_id(warehouse: str, db: str, table: str) -> int:
    return max(snapshot_ids(warehouse, db, table))


def data_files(warehouse: str, db: str, table: str) -> List[str]:
    """Data file paths relative to the table directory, e.g. 'p=x/bucket-0/data-<uuid>-0.parquet'."""
    root = table_path(warehouse, db, table)
    found = []
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f.startswith("data-"):
                found.append(os.path.relpath(os.path.join(dirpath, f), root))
    return sorted(found)


@contextlib.contextmanager
def unchanged(spark, warehouse: str, db: str, table: str):
    """Asserts that the block leaves the table's rows, snapshots and schemas exactly as they were."""
    name = f"{CATALOG}.{db}.{table}"
    before_rows = sql_rows(spark, f"SELECT * FROM {name}")
    before_snapshots = snapshot_ids(warehouse, db, table)
    before_schemas = schema_ids(warehouse, db, table)
    yield
    assert snapshot_ids(warehouse, db, table) == before_snapshots
    assert schema_ids(warehouse, db, table) == before_schemas
    assert sql_rows(spark, f"SELECT * FROM {name}") == before_rows


def error_text(excinfo) -> str:
    """The message of a raised error, whatever its class (Spark's, Lamina's or py4j's)."""
    e = excinfo.value
    message = getattr(e, "message", None)
    if isinstance(message, str) and message:
        return message + "\n" + str(e)
    return str(e)


def read_json(path) -> dict:
    import json

    with open(path, encoding="utf-8") as f:
        return json.load(f)


def read_schema(warehouse: str, db: str, table: str, schema_id: int) -> dict:
    """The Paimon schema file `schema/schema-<id>` as a dict."""
    return read_json(table_path(warehouse, db, table) / "schema" / f"schema-{schema_id}")


def read_snapshot(warehouse: str, db: str, table: str, snapshot_id: int) -> dict:
    """The Paimon snapshot file `snapshot/snapshot-<id>` as a dict."""
    return read_json(table_path(warehouse, db, table) / "snapshot" / f"snapshot-{snapshot_id}")


def field_types(schema: dict) -> dict:
    """{field name: Paimon type} of a schema file (atomic types as strings, nested as dicts)."""
    return {f["name"]: f["type"] for f in schema["fields"]}


def changes_between(spark, name: str, start: int, end: int) -> List[tuple]:
    """The records of the snapshots after `start` up to `end` of table `name` (catalog.db.table), each
    with its rowkind first, read from `$audit_log` incrementally, sorted."""
    head, table = name.rsplit(".", 1)
    df = spark.read.option("incremental-between", f"{start},{end}").table(f"{head}.`{table}$audit_log`")
    return sorted(tuple(r) for r in df.collect())


@contextlib.contextmanager
def session_conf(spark, key, value):
    """`key` set to `value` in the session's conf for the block."""
    spark.conf.set(key, value)
    try:
        yield
    finally:
        spark.conf.unset(key)


def _batch_scans(df):
    """The table scan nodes of `df`'s executed plan, after Spark's adaptive execution settled it."""
    plan = df._jdf.queryExecution().executedPlan()
    if plan.nodeName() == "AdaptiveSparkPlan":
        plan = plan.executedPlan()
    leaves = plan.collectLeaves().iterator()
    while leaves.hasNext():
        node = leaves.next()
        if node.nodeName().startswith("BatchScan"):
            yield node


def scan_output_rows(df) -> int:
    """The rows the table's scan handed Spark in the last run of `df` (the scan node's
    `numOutputRows`), after Spark's adaptive execution settled the plan."""
    return sum(node.metrics().apply("numOutputRows").value() for node in _batch_scans(df))


def planned_files(df) -> int:
    """Runs `df` and returns how many data files the table's scans planned (the splits Lamina's scan
    handed Spark)."""
    df.collect()
    total = 0
    for node in _batch_scans(df):
        splits = node.scan().plannedSplits()
        total += sum(splits.apply(i).files().size() for i in range(splits.size()))
    return total


def run_concurrently(targets) -> list:
    """Runs each callable in its own thread, all released at once; the exceptions they raised."""
    barrier = threading.Barrier(len(targets))
    errors = []

    def guard(fn):
        barrier.wait()
        try:
            fn()
        except BaseException as e:  # reported to the caller, with the others
            errors.append(e)

    threads = [threading.Thread(target=guard, args=(fn,)) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def damaged_copy(rng, original: bytes):
    """(bytes, how): `original` with one byte flipped (three times in four) or cut short, by `rng`."""
    at = rng.randrange(len(original))
    if rng.choice(["flip", "flip", "flip", "cut"]) == "flip":
        damaged = bytearray(original)
        damaged[at] ^= rng.randrange(1, 256)
        return bytes(damaged), f"byte {at} flipped"
    return original[:at], f"cut at {at}"


def read_damaged(target, damaged: bytes, read):
    """Writes `damaged` over the file `target`, calls `read()`, and restores the file: ("rows", what
    read returned) or ("error", the error's message and text)."""
    original = target.read_bytes()
    target.write_bytes(damaged)
    try:
        try:
            return "rows", read()
        except Exception as e:  # noqa: BLE001 - the caller judges whether the error names the file
            return "error", f"{getattr(e, 'message', '') or ''}\n{e}"
    finally:
        target.write_bytes(original)


def free_port() -> int:
    """A TCP port free on the loopback interface now, for a server a fixture starts."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_wheel(dest: Path) -> Path:
    """The package's wheel, built into `dest` from a copy of `python/`: a build in place writes its
    `build/` and `.egg-info` beside the sources, which two test workers building at once would share."""
    source = Path(dest) / "source"
    shutil.copytree(Path(__file__).resolve().parents[1] / "python", source,
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(dest),
                    str(source)], check=True, capture_output=True, text=True)
    wheels = list(Path(dest).glob("lamina-*-py3-none-any.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def drain_listeners(spark):
    """Waits until Spark's listeners have seen every event posted so far (the status stores are listeners)."""
    spark._jsc.sc().listenerBus().waitUntilEmpty()


def scala_list(scala_seq):
    return [scala_seq.apply(i) for i in range(scala_seq.size())]


def lamina_metrics(spark, action):
    """{metric description: value} of the Lamina metrics of the SQL executions that `action` ran, summed
    over them, from Spark's SQL status store."""
    store = spark._jsparkSession.sharedState().statusStore()
    drain_listeners(spark)
    before = {e.executionId() for e in scala_list(store.executionsList())}
    action()
    drain_listeners(spark)
    totals = {}
    for e in scala_list(store.executionsList()):
        if e.executionId() in before:
            continue
        values = {t._1(): t._2() for t in scala_list(store.executionMetrics(e.executionId()).toSeq())}
        # a plan may list one node's metric more than once (a write's plan, with its nested plans)
        metrics = {m.accumulatorId(): m.name() for m in scala_list(e.metrics()) if m.name().startswith("lamina ")}
        for accumulator, name in metrics.items():
            if accumulator in values:
                totals[name] = totals.get(name, 0) + int(values[accumulator])
    return totals
