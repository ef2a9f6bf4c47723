"""Writer processes, a compactor process, expiration and orphan removal on one table at once, checked
against a model afterwards: no row lost, none resurrected, none duplicated, every snapshot readable.

Each writer is its own Spark application (its own JVM) running INSERT, UPDATE, DELETE and MERGE on the
keys it owns and, on primary-key tables, upserts of keys shared by all (`_concurrency.py`). A compactor
application compacts the same buckets in a loop (full and universal); this session expires snapshots
and removes orphan files meanwhile. Afterwards each writer's keys must hold exactly what the operations
it saw commit leave; a shared key one row with a value some committed insert wrote.

The short run here is part of `make test`: the primary-key table with deletion vectors, where racing
compactions once deleted a live file; `make stress` runs every table kind, longer and with more
writers (LAMINA_STRESS=1)."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import _concurrency as model
from _support import sql_rows

CAT = "lamina"
HERE = Path(__file__).resolve().parent
STRESS = os.environ.get("LAMINA_STRESS") == "1"
WRITERS = 4 if STRESS else 2
OPS = 60 if STRESS else 10
SEED = 20261127

_TABLES = {
    "pk": "(k INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '2')",
    "pk_dv": "(k INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '2', "
             "'deletion-vectors.enabled' = 'true')",
    "append_dv": "(k INT, v STRING) TBLPROPERTIES ('deletion-vectors.enabled' = 'true')",
}


def _env():
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])))


@pytest.mark.parametrize("kind", list(_TABLES) if STRESS else ["pk_dv"])
def test_writers_compactor_and_expiration_against_the_model(spark, warehouse, db, tmp_path, kind):
    pk = kind.startswith("pk")
    table = f"{db}.{kind}"
    spark.sql(f"CREATE TABLE {CAT}.{table} {_TABLES[kind]}")
    stop = tmp_path / "stop"
    writers = [subprocess.Popen(
        [sys.executable, str(HERE / "_concurrency.py"), warehouse, table, str(w), str(WRITERS), str(OPS), str(SEED),
         "pk" if pk else "append"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
        for w in range(WRITERS)]
    compactor = subprocess.Popen([sys.executable, str(HERE / "_concurrency.py"), "compactor", warehouse, table, str(stop)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    maintenance = 0
    try:
        while any(p.poll() is None for p in writers):
            spark.sql(f"CALL {CAT}.sys.expire_snapshots(table => '{table}', retain_max => 3, retain_min => 1)").collect()
            spark.sql(f"CALL {CAT}.sys.remove_orphan_files(table => '{table}', "
                      f"older_than => '{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(time.time() - 120))}')").collect()
            maintenance += 1
            time.sleep(0.5)
    finally:
        stop.touch()
        outputs = [p.communicate(timeout=900) for p in writers]
        compactor_out, compactor_err = compactor.communicate(timeout=900)
    for p, (out, err) in zip(writers, outputs):
        assert p.returncode == 0, err.decode(errors="replace")[-4000:]
    assert compactor.returncode == 0, compactor_err.decode(errors="replace")[-4000:]
    assert maintenance > 0

    rows, shared_values, outcomes = model.expected([out.decode() for out, _ in outputs], WRITERS, OPS, SEED, pk)
    assert outcomes.get("committed", 0) > 0, outcomes

    # what a post-commit failure left in level 0 becomes visible
    spark.sql(f"CALL {CAT}.sys.compact(table => '{table}')").collect()
    model.check(sql_rows(spark, f"SELECT k, v FROM {CAT}.{table}"), rows, shared_values)

    # every snapshot still listed reads
    for (sid,) in sql_rows(spark, f"SELECT snapshot_id FROM {CAT}.{db}.`{kind}$snapshots`"):
        spark.sql(f"SELECT count(*) FROM {CAT}.{table} VERSION AS OF {sid}").collect()
