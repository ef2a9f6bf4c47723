"""Writer processes and a compactor process on one primary-key table of a catalog with the commit lock
(`lock.enabled=true`): JDBC on SQLite (a file) and on a PostgreSQL server this module starts, where
every commit takes the row of `paimon_distributed_locks` and gives it back; and a Hive metastore (a
thrift server this module starts), where every commit takes the metastore's table lock. Each writer is its own Spark
application running INSERT, UPDATE, DELETE and MERGE on the keys it owns and upserts of keys shared by
all (`_concurrency.py`); afterwards the table must hold what the operations each writer saw commit leave
(no commit lost), one snapshot per committed operation (none applied twice), and the lock table must
be empty.

`make test` runs a short version on SQLite; `make stress` (LAMINA_STRESS=1) Hive and PostgreSQL too, 4
writers of 25 operations each (test_catalog_metastores checks the Hive lock itself in `make test`)."""

import itertools
import json
import os
import sqlite3

import pytest

import _concurrency as model
from _hive import MetastoreServer
from _postgres import postgres_server
from _support import sql_rows

STRESS = os.environ.get("LAMINA_STRESS") == "1"
WRITERS = 4 if STRESS else 2
OPS = 25 if STRESS else 6
SEED = 20270311
TABLE = "d.t"
_keys = itertools.count()


@pytest.fixture(scope="module")
def postgres():
    yield from postgres_server()


@pytest.fixture(scope="module")
def hive_uri():
    with MetastoreServer() as uri:
        yield uri


@pytest.fixture(params=["jdbc-sqlite", "jdbc-postgresql", "hive-thrift"] if STRESS else ["jdbc-sqlite"])
def metastore(request, spark, tmp_path):
    """(lamina.configure's metastore arguments, a function returning the lock table's rows)."""
    # a lock not granted at once is asked for again after at most 200 ms (8 s by default), so that a
    # short run is not spent sleeping
    lock = {"lock.enabled": "true", "lock-check-max-sleep": "200 ms", "lock-acquire-timeout": "2 min"}
    if request.param == "jdbc-sqlite":
        path = tmp_path / "catalog.db"

        def locks():
            with sqlite3.connect(path) as c:
                return c.execute("SELECT lock_id FROM paimon_distributed_locks").fetchall()
        return {"metastore": "jdbc", "uri": f"jdbc:sqlite:{path}", "catalog_options": lock}, locks
    if request.param == "hive-thrift":
        uri = request.getfixturevalue("hive_uri")

        def locks():
            jvm = spark.sparkContext._jvm
            conf = jvm.org.apache.hadoop.hive.conf.HiveConf()
            conf.set("hive.metastore.uris", uri)
            client = jvm.org.apache.hadoop.hive.metastore.HiveMetaStoreClient(conf)
            try:
                return [(lock.getDbname(), lock.getTablename(), str(lock.getState()))
                        for lock in client.showLocks().getLocks()]
            finally:
                client.close()
        return {"metastore": "hive", "uri": uri, "catalog_options": lock}, locks
    server = request.getfixturevalue("postgres")
    key = f"k{next(_keys)}"

    def locks():
        return server.psql(f"SELECT lock_id FROM paimon_distributed_locks WHERE lock_id LIKE '{key}.%'")
    return {"metastore": "jdbc", "uri": server.uri,
            "catalog_options": dict(lock, **{"jdbc.user": "lamina", "catalog-key": key})}, locks


def _session_catalog(spark, name, warehouse, config):
    """Catalog `name` on the shared session, with the options `lamina.configure(**config)` sets."""
    prefix = f"spark.sql.catalog.{name}"
    spark.conf.set(prefix, "lamina.spark.LaminaCatalog")
    spark.conf.set(f"{prefix}.warehouse", warehouse)
    spark.conf.set(f"{prefix}.metastore", config["metastore"])
    spark.conf.set(f"{prefix}.uri", config["uri"])
    for key, value in config["catalog_options"].items():
        spark.conf.set(f"{prefix}.{key}", value)
    return name



def test_locked_writers_and_compactor_lose_and_duplicate_no_commit(spark, tmp_path, metastore):
    config, locks = metastore
    warehouse = str(tmp_path / "wh")
    cat = _session_catalog(spark, f"locked{next(_keys)}", warehouse, config)
    spark.sql(f"CREATE NAMESPACE {cat}.d")
    spark.sql(f"CREATE TABLE {cat}.{TABLE} (k INT NOT NULL, v STRING) "
              "TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '2')")
    texts, compactor_out = model.run_writers_and_compactor(warehouse, TABLE, WRITERS, OPS, SEED, True,
                                                           json.dumps(config), tmp_path / "stop")
    rows, shared_values, outcomes = model.expected(texts, WRITERS, OPS, SEED, True)
    assert outcomes.get("committed", 0) > 0, outcomes
    assert set(outcomes) <= {"committed", "conflict"}, outcomes
    kinds = [k for (k,) in sql_rows(spark, f"SELECT commit_kind FROM {cat}.d.`t$snapshots`")]
    assert len([k for k in kinds if k != "COMPACT"]) == model.changing_commits(texts, WRITERS, OPS, SEED, True), (kinds, outcomes)
    model.check(sql_rows(spark, f"SELECT k, v FROM {cat}.{TABLE}"), rows, shared_values)
    assert "compacted" in compactor_out
    assert locks() == []
