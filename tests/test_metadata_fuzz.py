"""Damaged metadata is reported, never read as other rows.

Seeded trials flip one byte of, or cut, one metadata file that a read of the latest snapshot uses
(the snapshot, the schema, the manifest lists, the manifests) of a primary-key table with updates,
deletes and a compaction behind it, then read the table. Every trial either reads exactly the rows
of the undamaged table or fails with an error that names the damaged file; none returns other rows."""

import json
import os
import random
from pathlib import Path

import pytest

from _support import damaged_copy, latest_snapshot_id, read_damaged, sql_rows, table_path

CAT = "lamina"
# `make stress` (LAMINA_STRESS=1) runs 480 trials; `make test` 120
TRIALS = 480 if os.environ.get("LAMINA_STRESS") == "1" else 120
SEED = 20261125


@pytest.fixture(scope="module")
def damaged_table(spark, warehouse):
    db = "metadata_fuzz"
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {CAT}.{db}")
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT NOT NULL, p STRING NOT NULL, v STRING, n BIGINT) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'id,p', 'bucket' = '2')")
    spark.sql(f"INSERT INTO {name} SELECT id, IF(id % 2 = 0, 'a', 'b'), CONCAT('v', id), id * 10 FROM range(40)")
    spark.sql(f"UPDATE {name} SET v = 'updated' WHERE id % 5 = 0")
    spark.sql(f"DELETE FROM {name} WHERE id % 7 = 0")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', partitions => 'p=a')")
    spark.sql(f"INSERT INTO {name} VALUES (100, 'a', 'late', 1), (3, 'b', 'again', 2)")
    spark.sql(f"DELETE FROM {name} WHERE id = 8")
    yield db, name
    spark.sql(f"DROP NAMESPACE IF EXISTS {CAT}.{db} CASCADE")


def _read_files(warehouse, db):
    """The metadata files a read of the latest snapshot opens."""
    root = table_path(warehouse, db, "t")
    snapshot_file = root / "snapshot" / f"snapshot-{latest_snapshot_id(warehouse, db, 't')}"
    snapshot = json.loads(snapshot_file.read_text())
    files = [snapshot_file, root / "schema" / "schema-0",
             root / "manifest" / snapshot["baseManifestList"], root / "manifest" / snapshot["deltaManifestList"]]
    return files


def test_every_damaged_metadata_file_is_reported_or_harmless(spark, warehouse, damaged_table):
    db, name = damaged_table
    expected = sql_rows(spark, f"SELECT * FROM {name}")
    assert len(expected) > 20
    manifests = [r[0] for r in sql_rows(spark, f"SELECT file_name FROM {CAT}.{db}.`t$manifests`")]
    assert manifests
    files = _read_files(warehouse, db) + [table_path(warehouse, db, "t") / "manifest" / m for m in manifests]
    rng = random.Random(SEED)
    outcomes = {"same rows": 0, "reported": 0}
    wrong = []
    for trial in range(TRIALS):
        target: Path = files[trial % len(files)]
        damaged, how = damaged_copy(rng, target.read_bytes())
        outcome, got = read_damaged(target, damaged, lambda: sql_rows(spark, f"SELECT * FROM {name}"))
        if outcome == "error":
            if target.name in got:
                outcomes["reported"] += 1
            else:
                wrong.append(f"{target.name} {how}: error not naming the file: {got[:300]}")
        elif got == expected:
            outcomes["same rows"] += 1
        else:
            wrong.append(f"{target.name} {how}: read {len(got)} rows that differ from the {len(expected)} expected")
    assert wrong == [], "\n".join(wrong)
    assert outcomes["reported"] > TRIALS // 2, outcomes
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected



@pytest.mark.parametrize("damage", [
    ('"primaryKeys"', '"primaryKeyz"'),
    ('"primaryKeys" : [ "id", "p" ]', '"primaryKeys" : [ ]'),
    ('"merge-engine"', '"merge-enginf"'),
    ('"partitionKeys"', '"partitionKeyz"'),
])
def test_a_damaged_schema_never_reads_as_another_table(spark, warehouse, db, damage):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT NOT NULL, p STRING NOT NULL, v STRING) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'id,p', 'bucket' = '1', 'merge-engine' = 'deduplicate')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 'old'), (2, 'a', 'gone')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 'new')")
    spark.sql(f"DELETE FROM {name} WHERE id = 2")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "a", "new")]
    schema_file = table_path(warehouse, db, "t") / "schema" / "schema-0"
    text = schema_file.read_text()
    assert damage[0] in text, text
    schema_file.write_text(text.replace(damage[0], damage[1]))
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"SELECT * FROM {name}").collect()
    assert str(schema_file) in f"{getattr(excinfo.value, 'message', '')}\n{excinfo.value}"
