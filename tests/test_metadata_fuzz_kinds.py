"""Every kind of metadata added since the first corruption suite is reported when damaged, never read
as other rows: deletion-vector index files and the index manifest, the changelog manifest lists and
changelog files, tag files, a branch's snapshot and schema, consumer files, statistics files.

Per kind, seeded trials flip one byte of, or cut, one file that a query of that kind opens, run the
query, and expect exactly the rows of the undamaged table or an error that names the damaged file."""

import json
import random
import re
from pathlib import Path

import pytest

from _support import damaged_copy, latest_snapshot_id, read_damaged, rows, sql_rows, table_path

CAT = "lamina"
DB = "metadata_fuzz_kinds"
TRIALS_PER_KIND = 36
SEED = 20261127


def _snapshot(root: Path, snapshot_id=None) -> dict:
    if snapshot_id is None:
        snapshot_id = int((root / "snapshot" / "LATEST").read_text())
    return json.loads((root / "snapshot" / f"snapshot-{snapshot_id}").read_text())


@pytest.fixture(scope="module")
def tables(spark, warehouse):
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {CAT}.{DB}")
    q = f"{CAT}.{DB}"
    spark.sql(f"CREATE TABLE {q}.dv (k INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '2', "
              "'deletion-vectors.enabled' = 'true')")
    spark.sql(f"INSERT INTO {q}.dv SELECT id, CONCAT('v', id) FROM range(60)")
    spark.sql(f"UPDATE {q}.dv SET v = 'u' WHERE k % 3 = 0")
    spark.sql(f"DELETE FROM {q}.dv WHERE k % 5 = 0")
    # the DELETE's compaction may rewrite each bucket whole, leaving no vector: one more update leaves one
    spark.sql(f"UPDATE {q}.dv SET v = 'w' WHERE k = 1")
    spark.sql(f"CREATE TABLE {q}.cl (k INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1', "
              "'changelog-producer' = 'input')")
    spark.sql(f"INSERT INTO {q}.cl SELECT id, 'a' FROM range(20)")
    spark.sql(f"INSERT INTO {q}.cl SELECT id, 'b' FROM range(10, 30)")
    spark.sql(f"CREATE TABLE {q}.tb (k INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {q}.tb SELECT id, 'x' FROM range(15)")
    spark.sql(f"CALL {CAT}.sys.create_tag(table => '{DB}.tb', tag => 'one')")
    spark.sql(f"CALL {CAT}.sys.create_branch(table => '{DB}.tb', branch => 'dev', tag => 'one')")
    spark.sql(f"INSERT INTO {q}.`tb$branch_dev` VALUES (100, 'dev')")
    spark.sql(f"INSERT INTO {q}.tb VALUES (200, 'main')")
    spark.sql(f"ANALYZE TABLE {q}.tb COMPUTE STATISTICS FOR ALL COLUMNS")
    # a consumer file, recorded by a streaming read with a consumer id
    query = (spark.readStream.option("consumer-id", "c1").table(f"{q}.tb")
             .writeStream.format("memory").queryName("fuzz_consumer").trigger(availableNow=True).start())
    query.awaitTermination()
    yield
    spark.sql(f"DROP NAMESPACE IF EXISTS {CAT}.{DB} CASCADE")


def _kinds(warehouse):
    """kind -> (files to damage, query)."""
    q = f"{CAT}.{DB}"
    dv, cl, tb = (table_path(warehouse, DB, t) for t in ("dv", "cl", "tb"))
    dv_snap = _snapshot(dv)
    cl_last = latest_snapshot_id(warehouse, DB, "cl")
    cl_snaps = [_snapshot(cl, i) for i in range(1, cl_last + 1)]
    changelog_lists = [cl / "manifest" / s["changelogManifestList"] for s in cl_snaps if s.get("changelogManifestList")]
    branch = tb / "branch" / "branch-dev"
    branch_latest = int((branch / "snapshot" / "LATEST").read_text())
    stats = sorted((tb / "statistics").iterdir()) if (tb / "statistics").is_dir() else []
    return {
        "deletion-vector index": (
            [dv / "manifest" / dv_snap["indexManifest"]] + sorted((dv / "index").glob("index-*")),
            f"SELECT * FROM {q}.dv"),
        "changelog manifests": (
            changelog_lists + sorted((cl / "bucket-0").glob("changelog-*")),
            lambda spark: rows(spark.read.option("incremental-between", f"0,{cl_last}")
                               .option("incremental-between-scan-mode", "changelog").table(f"{q}.`cl$audit_log`"))),
        "tag": ([tb / "tag" / "tag-one"], f"SELECT * FROM {q}.tb VERSION AS OF 'one'"),
        "branch": ([branch / "snapshot" / f"snapshot-{branch_latest}", branch / "schema" / "schema-0"],
                   f"SELECT * FROM {q}.`tb$branch_dev`"),
        "consumer": ([tb / "consumer" / "consumer-c1"], f"SELECT * FROM {q}.`tb$consumers`"),
        "statistics": (stats, f"SELECT * FROM {q}.`tb$statistics`"),
    }


def _digits_only_differ(got, expected) -> bool:
    """Whether two results differ only in digits: a digit changed for another inside a number, which a
    statistics file (Paimon's JSON, no checksum) cannot show, and which only misleads estimates."""
    mask = lambda rs: re.sub(r"\d", "0", repr(rs))  # noqa: E731
    return mask(got) == mask(expected)


@pytest.mark.parametrize("kind", ["deletion-vector index", "changelog manifests", "tag", "branch", "consumer",
                                  "statistics"])
def test_each_damaged_file_of_a_kind_is_reported_or_harmless(spark, warehouse, tables, kind):
    files, query = _kinds(warehouse)[kind]
    run = query if callable(query) else (lambda spark: sql_rows(spark, query))
    data = f"SELECT * FROM {CAT}.{DB}.tb"
    data_rows = sql_rows(spark, data)
    assert files, f"the fixture made no {kind} file"
    for f in files:
        assert f.is_file(), f
    expected = run(spark)
    assert expected, query
    rng = random.Random(f"{SEED}-{kind}")
    wrong = []
    outcomes = {"same rows": 0, "reported": 0}
    for trial in range(TRIALS_PER_KIND):
        target = files[trial % len(files)]
        damaged, how = damaged_copy(rng, target.read_bytes())
        # the table's own rows are read with the file damaged too: statistics never change them
        outcome, got = read_damaged(target, damaged, lambda: (run(spark), sql_rows(spark, data)))
        if outcome == "error":
            if target.name in got:
                outcomes["reported"] += 1
            else:
                wrong.append(f"{target.name} {how}: error not naming the file: {got[:400]}")
        elif got[0] == expected or (kind == "statistics" and _digits_only_differ(got[0], expected)):
            outcomes["same rows"] += 1
            assert got[1] == data_rows, f"{target.name} {how}: the table's rows changed"
        else:
            wrong.append(f"{target.name} {how}: other rows read: {got[0][:5]}")
    assert wrong == [], "\n".join(wrong[:10])
    assert outcomes["reported"] > 0, outcomes
    assert run(spark) == expected
