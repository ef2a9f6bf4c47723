"""Faults of the S3 store at each step of a commit: the PUT of a manifest, of a manifest list, of the
snapshot (the conditional PUT that commits) and of the LATEST hint, each failing before the store
takes it (a 500, every time), failing after the store took it (a 500), or answered only after the
client gave up. Whatever happens, the table is left at a committed state: the write either committed
exactly once or failed with a clear error (`CommitStateUnknownException`, saying how to check, where
the snapshot's PUT never got an answer), and every snapshot reads."""

import itertools

import pytest

from _s3 import S3Server
from _support import error_text, sql_rows

_tables = itertools.count()

STEPS = {
    "manifest": r"/manifest/manifest-[0-9a-f]{8}-",
    "manifest-list": r"/manifest/manifest-list-",
    "snapshot": r"/snapshot/snapshot-\d+$",
    "latest-hint": r"/snapshot/LATEST$",
}


@pytest.fixture(scope="module")
def s3():
    with S3Server() as server:
        yield server


@pytest.fixture(scope="module")
def cat(spark, s3):
    name = "s3faults"
    prefix = f"spark.sql.catalog.{name}"
    spark.conf.set(prefix, "lamina.spark.LaminaCatalog")
    spark.conf.set(f"{prefix}.warehouse", s3.warehouse())
    # few retries, so that a store that keeps failing is given up on in seconds
    for key, value in s3.catalog_options(**{"s3.retry.limit": "2", "s3.attempts.maximum": "2"}).items():
        spark.conf.set(f"{prefix}.{key}", value)
    spark.sql(f"CREATE NAMESPACE {name}.d")
    return name


CASES = [(step, mode) for step in STEPS for mode in ("error", "stored-error")] + \
    [("snapshot", "stored-hang"), ("manifest-list", "stored-hang")]


@pytest.mark.parametrize("step,mode", CASES, ids=[f"{s}-{m}" for s, m in CASES])
def test_a_failing_put_leaves_a_committed_state(spark, s3, cat, step, mode):
    table = f"{cat}.d.t{next(_tables)}"
    spark.sql(f"CREATE TABLE {table} (k INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {table} VALUES (1, 'before')")
    times = 1000 if mode == "error" else 1
    s3.inject([{"method": "PUT", "match": f"/{table.split('.')[-1]}{STEPS[step]}", "mode": mode, "times": times,
                "seconds": 5}])
    error = None
    try:
        spark.sql(f"INSERT INTO {table} VALUES (2, 'during')")
    except Exception as e:  # noqa: BLE001 - judged below
        error = error_text(pytest.ExceptionInfo.from_exception(e))
    finally:
        s3.inject([])
    rows = sql_rows(spark, f"SELECT * FROM {table}")
    if error is None:
        assert rows == [(1, "before"), (2, "during")]
    elif step == "snapshot":
        # the conditional PUT never got an answer: the commit may or may not have landed, and says so
        assert "may or may not have landed" in error and "snapshots" in error, error
        assert rows in ([(1, "before")], [(1, "before"), (2, "during")])
    else:
        assert "Could not" in error or "failed" in error, error
        assert rows == [(1, "before")]
    # what the table says it did is what it did
    if mode != "error" or step == "latest-hint":
        assert error is None, (step, mode, error)
    snapshots = sql_rows(spark, f"SELECT snapshot_id FROM {table.rsplit('.', 1)[0]}.`{table.rsplit('.', 1)[1]}$snapshots`")
    assert [s for (s,) in snapshots] == list(range(1, len(rows) + 1))
    for (sid,) in snapshots:
        spark.sql(f"SELECT count(*) FROM {table} VERSION AS OF {sid}").collect()
    # and it goes on: the next write commits
    spark.sql(f"INSERT INTO {table} VALUES (3, 'after')")
    assert (3, "after") in sql_rows(spark, f"SELECT * FROM {table}")
