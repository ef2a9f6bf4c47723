"""Concurrent writers on S3 without any lock service: writer processes and a compactor process on one
primary-key and one append table whose warehouse is on an S3 server on loopback (`_s3.py`). Every
commit creates its snapshot by a conditional PUT (`If-None-Match: *`); a writer that loses the race
for a snapshot id re-plans and tries the next. Afterwards the table must hold what the operations each
writer saw commit leave (no commit lost), one snapshot per committed change (none applied twice), and
every snapshot must read.

`make test` runs a short version on the primary-key table; `make stress` (LAMINA_STRESS=1) both tables,
4 writers of 25 operations each."""

import json
import os

import pytest

import _concurrency as model
from _s3 import S3Server, class_path
from _support import sql_rows

STRESS = os.environ.get("LAMINA_STRESS") == "1"
WRITERS = 4 if STRESS else 2
OPS = 25 if STRESS else 4
SEED = 20261128
TABLE = "d.t"

_TABLES = {
    "pk": "(k INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '2')",
    "append": "(k INT, v STRING)",
}


@pytest.fixture(scope="module")
def s3():
    with S3Server() as server:
        yield server



@pytest.mark.parametrize("kind", list(_TABLES) if STRESS else ["pk"])
def test_writers_and_compactor_on_s3_lose_and_duplicate_no_commit(spark, s3, tmp_path, kind):
    pk = kind == "pk"
    warehouse = s3.warehouse()
    name = f"s3conc_{kind}"
    prefix = f"spark.sql.catalog.{name}"
    spark.conf.set(prefix, "lamina.spark.LaminaCatalog")
    spark.conf.set(f"{prefix}.warehouse", warehouse)
    for key, value in s3.catalog_options().items():
        spark.conf.set(f"{prefix}.{key}", value)
    spark.sql(f"CREATE NAMESPACE {name}.d")
    spark.sql(f"CREATE TABLE {name}.{TABLE} {_TABLES[kind]}")

    catalog = json.dumps({"catalog_options": s3.catalog_options(),
                          "spark_conf": {"spark.driver.extraClassPath": class_path()}})
    texts, compactor_out = model.run_writers_and_compactor(warehouse, TABLE, WRITERS, OPS, SEED, pk, catalog,
                                                           tmp_path / "stop")
    rows, shared_values, outcomes = model.expected(texts, WRITERS, OPS, SEED, pk)
    assert outcomes.get("committed", 0) > 0, outcomes
    assert set(outcomes) <= {"committed", "conflict", "skipped"}, outcomes
    snapshots = sql_rows(spark, f"SELECT snapshot_id, commit_kind FROM {name}.d.`t$snapshots`")
    changes = [sid for sid, kind_ in snapshots if kind_ != "COMPACT"]
    assert len(changes) == model.changing_commits(texts, WRITERS, OPS, SEED, pk), (snapshots, outcomes)
    # snapshot ids are consecutive: no id taken twice, none skipped
    ids = sorted(sid for sid, _ in snapshots)
    assert ids == list(range(1, len(ids) + 1))
    model.check(sql_rows(spark, f"SELECT k, v FROM {name}.{TABLE}"), rows, shared_values)
    for sid in ids:
        spark.sql(f"SELECT count(*) FROM {name}.{TABLE} VERSION AS OF {sid}").collect()
    assert "compacted" in compactor_out
