"""Tables with deletion vectors that Apache Paimon's own connector writes (`deletion-vectors.enabled`):
Lamina reads them as Paimon does, applying each data file's deletion vector and, for primary-key
tables, reading the files above level 0 without merging; time travel applies the vectors of the
snapshot read. Lamina's writes and lookup compaction keep the vectors in Paimon's format (Paimon reads
them back), and a damaged index file fails the read, naming the file. Expected rows are computed here, in Python, from
the statements Paimon ran (and checked against Paimon's own reads of the latest snapshot)."""

import json
import shutil
import uuid

import fastavro
import pytest

import lamina
from _support import error_text, snapshot_ids, sql_rows, table_path
from paimon_connector import require_paimon, run_sql

CAT = "lamina"
DB = "interop_dv"
DV = "'deletion-vectors.enabled' = 'true'"


def _snapshot(table):
    return f"SELECT max(snapshot_id) FROM paimon.{DB}.`{table}$snapshots`"


# (statement, or a table name whose latest snapshot id to record under a label)
SCRIPT = [
    f"CREATE DATABASE IF NOT EXISTS paimon.{DB}",
    # primary key, deduplicate, not partitioned
    f"CREATE TABLE paimon.{DB}.pk (id INT, v STRING, n INT) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', {DV})",
    f"INSERT INTO paimon.{DB}.pk SELECT id, concat('a', id), id FROM range(0, 40) AS t(id)",
    ("pk", "pk_inserted"),
    f"INSERT INTO paimon.{DB}.pk SELECT id, concat('b', id), id * 10 FROM range(0, 40, 3) AS t(id)",
    f"DELETE FROM paimon.{DB}.pk WHERE id % 5 = 1",
    ("pk", "pk_deleted"),
    f"UPDATE paimon.{DB}.pk SET v = 'u' WHERE id % 7 = 2",
    # primary key, partial-update, partitioned
    f"CREATE TABLE paimon.{DB}.pkp (dt STRING, id INT, a STRING, b INT) PARTITIONED BY (dt) "
    f"TBLPROPERTIES ('primary-key' = 'dt,id', 'bucket' = '2', 'merge-engine' = 'partial-update', {DV})",
    f"INSERT INTO paimon.{DB}.pkp SELECT d, id, concat('a', id), CAST(NULL AS INT) FROM range(0, 20) AS t(id) "
    "CROSS JOIN (SELECT 'd1' AS d UNION ALL SELECT 'd2')",
    f"INSERT INTO paimon.{DB}.pkp SELECT d, id, CAST(NULL AS STRING), id FROM range(0, 20, 2) AS t(id) "
    "CROSS JOIN (SELECT 'd1' AS d UNION ALL SELECT 'd2')",
    f"UPDATE paimon.{DB}.pkp SET a = 'x' WHERE id % 3 = 0",
    ("pkp", "pkp_updated"),
    f"INSERT OVERWRITE paimon.{DB}.pkp PARTITION (dt = 'd2') SELECT id, concat('o', id), CAST(NULL AS INT) "
    "FROM range(0, 5) AS t(id)",
    # primary key, aggregation (Paimon refuses deletion vectors with first-row: it never deletes old rows)
    f"CREATE TABLE paimon.{DB}.pka (id INT, total BIGINT) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', "
    f"'merge-engine' = 'aggregation', 'fields.total.aggregate-function' = 'sum', {DV})",
    f"INSERT INTO paimon.{DB}.pka SELECT id, 1 FROM range(0, 10) AS t(id)",
    f"INSERT INTO paimon.{DB}.pka SELECT id, 2 FROM range(5, 15) AS t(id)",
    # append, partitioned, two deletes of the same files
    f"CREATE TABLE paimon.{DB}.ap (id INT, v STRING, p STRING) PARTITIONED BY (p) TBLPROPERTIES ({DV})",
    f"INSERT INTO paimon.{DB}.ap SELECT id, concat('a', id), concat('p', id % 2) FROM range(0, 30) AS t(id)",
    f"DELETE FROM paimon.{DB}.ap WHERE id % 4 = 0",
    ("ap", "ap_deleted"),
    f"DELETE FROM paimon.{DB}.ap WHERE id % 3 = 0",
    # append, 64-bit deletion vectors
    f"CREATE TABLE paimon.{DB}.ap64 (id INT, v STRING) TBLPROPERTIES ({DV}, 'deletion-vectors.bitmap64' = 'true')",
    f"INSERT INTO paimon.{DB}.ap64 SELECT id, concat('a', id) FROM range(0, 30) AS t(id)",
    f"DELETE FROM paimon.{DB}.ap64 WHERE id % 4 = 0",
    # Paimon's own reads of the latest snapshots, to check the expectations below
    f"SELECT * FROM paimon.{DB}.pk",
    f"SELECT * FROM paimon.{DB}.pkp",
    f"SELECT * FROM paimon.{DB}.pka",
    f"SELECT * FROM paimon.{DB}.ap",
    f"SELECT * FROM paimon.{DB}.ap64",
]

TABLES = ["pk", "pkp", "pka", "ap", "ap64"]


def _expected():
    """Each table's rows after each labelled step and at the end, from the statements above."""
    out = {}
    pk = {i: (f"a{i}", i) for i in range(40)}
    out["pk_inserted"] = dict(pk)
    pk.update({i: (f"b{i}", i * 10) for i in range(0, 40, 3)})
    pk = {i: r for i, r in pk.items() if i % 5 != 1}
    out["pk_deleted"] = dict(pk)
    pk = {i: (("u", r[1]) if i % 7 == 2 else r) for i, r in pk.items()}
    out["pk"] = pk

    pkp = {(d, i): [f"a{i}", None] for d in ("d1", "d2") for i in range(20)}
    for d in ("d1", "d2"):
        for i in range(0, 20, 2):
            pkp[(d, i)][1] = i
    for (d, i), r in pkp.items():
        if i % 3 == 0:
            r[0] = "x"
    out["pkp_updated"] = {k: tuple(r) for k, r in pkp.items()}
    pkp = {k: r for k, r in pkp.items() if k[0] != "d2"}
    pkp.update({("d2", i): [f"o{i}", None] for i in range(5)})
    out["pkp"] = {k: tuple(r) for k, r in pkp.items()}

    out["pka"] = {i: (1 if i < 5 else 3 if i < 10 else 2,) for i in range(15)}

    ap = {i: (f"a{i}", f"p{i % 2}") for i in range(30) if i % 4 != 0}
    out["ap_deleted"] = dict(ap)
    out["ap"] = {i: r for i, r in ap.items() if i % 3 != 0}
    out["ap64"] = {i: (f"a{i}",) for i in range(30) if i % 4 != 0}
    return out


def _rows(step, expected):
    """The rows of `step` in the table's column order, sorted."""
    table = step.split("_")[0]
    key = (lambda k: k) if table == "pkp" else (lambda k: (k,))
    return _sorted(key(k) + r for k, r in expected[step].items())


def _sorted(rows):
    return sorted((tuple(r) for r in rows), key=lambda t: tuple((x is None, x) for x in t))


@pytest.fixture(scope="module")
def paimon_dv(spark, warehouse):
    """Runs SCRIPT through Paimon's connector once: the recorded snapshot ids and Paimon's reads."""
    require_paimon()
    statements, labels = [], {}
    for s in SCRIPT:
        if isinstance(s, tuple):
            labels[len(statements)] = s[1]
            statements.append(_snapshot(s[0]))
        else:
            statements.append(s)
    results = run_sql(warehouse, statements)
    snapshots = {label: results[i][0][0] for i, label in labels.items()}
    paimon_reads = dict(zip(TABLES, results[-len(TABLES):]))
    return snapshots, paimon_reads


def test_paimon_wrote_deletion_vectors(paimon_dv, warehouse):
    for t in ("pk", "pkp", "ap", "ap64"):  # pka's compactions rewrote whole runs: no vector needed
        index = table_path(warehouse, DB, t) / "index"
        assert index.is_dir() and any(f.stat().st_size > 1 for f in index.iterdir()), t


def test_the_expectations_match_paimons_own_reads(paimon_dv):
    _, paimon_reads = paimon_dv
    expected = _expected()
    for t in TABLES:
        assert _sorted(paimon_reads[t]) == _rows(t, expected), t


@pytest.mark.parametrize("table", TABLES)
def test_lamina_reads_the_latest_snapshot(spark, paimon_dv, table):
    assert _sorted(sql_rows(spark, f"SELECT * FROM {CAT}.{DB}.{table}")) == _rows(table, _expected())


@pytest.mark.parametrize("step", ["pk_inserted", "pk_deleted", "pkp_updated", "ap_deleted"])
def test_lamina_reads_earlier_snapshots_with_their_own_vectors(spark, paimon_dv, step):
    snapshots, _ = paimon_dv
    table = step.split("_")[0]
    rows = sql_rows(spark, f"SELECT * FROM {CAT}.{DB}.{table} VERSION AS OF {snapshots[step]}")
    assert _sorted(rows) == _rows(step, _expected())


def test_filters_projections_and_audit_log_apply_the_vectors(spark, paimon_dv):
    expected = _expected()
    assert _sorted(sql_rows(spark, f"SELECT id, n FROM {CAT}.{DB}.pk WHERE id BETWEEN 10 AND 20")) == sorted(
        (i, r[1]) for i, r in expected["pk"].items() if 10 <= i <= 20)
    assert sql_rows(spark, f"SELECT count(*) FROM {CAT}.{DB}.ap WHERE p = 'p1'") == [
        (sum(1 for r in expected["ap"].values() if r[1] == "p1"),)]
    assert sql_rows(spark, f"SELECT id FROM {CAT}.{DB}.ap64 ORDER BY id LIMIT 3") == [(1,), (2,), (3,)]
    assert _sorted(sql_rows(spark, f"SELECT id, v, n FROM {CAT}.{DB}.`pk$audit_log`")) == _rows("pk", expected)
    # the top level alone, through its vectors: current rows only, each once
    ro = sql_rows(spark, f"SELECT * FROM {CAT}.{DB}.`pk$ro`")
    assert ro and len(set(ro)) == len(ro) and set(ro) <= set(_rows("pk", expected))


def test_lamina_writes_paimons_tables_and_paimon_reads_them_back(spark, warehouse, paimon_dv):
    """DML and compaction on copies of Paimon's tables keep their vectors in Paimon's format: Lamina's
    lookup compaction marks the old rows of Paimon's files, and Paimon's own connector reads the result."""
    expected = _expected()
    for table in ("pk", "ap"):
        shutil.copytree(table_path(warehouse, DB, table), table_path(warehouse, DB, f"{table}_w"))
    pk = dict(expected["pk"])
    statements = [
        (f"INSERT INTO {CAT}.{DB}.pk_w VALUES (100, 'w', 1), (4, 'x', 4)", {100: ("w", 1), 4: ("x", 4)}),
        (f"DELETE FROM {CAT}.{DB}.pk_w WHERE id = 2", {2: None}),
        (f"MERGE INTO {CAT}.{DB}.pk_w t USING (SELECT 5 AS id, 'm' AS v, 5 AS n) s ON t.id = s.id "
         "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *", {5: ("m", 5)}),
        (f"CALL {CAT}.sys.compact(table => '{DB}.pk_w')", {}),
    ]
    for statement, change in statements:
        spark.sql(statement).collect()
        for k, r in change.items():
            if r is None:
                pk.pop(k, None)
            else:
                pk[k] = r
        assert _sorted(sql_rows(spark, f"SELECT * FROM {CAT}.{DB}.pk_w")) == _sorted((k,) + r for k, r in pk.items())
    ap = dict(expected["ap"])
    # marks added to the vectors Paimon wrote, in Paimon's append-table layout
    spark.sql(f"DELETE FROM {CAT}.{DB}.ap_w WHERE id < 10").collect()
    spark.sql(f"UPDATE {CAT}.{DB}.ap_w SET v = 'u' WHERE id % 5 = 1").collect()
    spark.sql(f"MERGE INTO {CAT}.{DB}.ap_w t USING (SELECT 13 AS id UNION ALL SELECT 50) s ON t.id = s.id "
              "WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT (id, v, p) VALUES (s.id, 'm', 'p0')").collect()
    ap = {k: (("u", r[1]) if k % 5 == 1 else r) for k, r in ap.items() if k >= 10 and k != 13}
    ap[50] = ("m", "p0")
    assert _sorted(sql_rows(spark, f"SELECT * FROM {CAT}.{DB}.ap_w")) == _sorted((k,) + r for k, r in ap.items())
    paimon = run_sql(warehouse, [f"SELECT * FROM paimon.{DB}.pk_w", f"SELECT * FROM paimon.{DB}.ap_w"])
    assert _sorted(paimon[0]) == _sorted((k,) + r for k, r in pk.items())
    assert _sorted(paimon[1]) == _sorted((k,) + r for k, r in ap.items())


def test_a_damaged_index_file_fails_the_read_naming_it(spark, warehouse, paimon_dv):
    for table in ("pk", "ap"):
        copy = f"{table}_damaged"
        shutil.copytree(table_path(warehouse, DB, table), table_path(warehouse, DB, copy))
        damaged = []
        for f in sorted((table_path(warehouse, DB, copy) / "index").iterdir()):
            data = bytearray(f.read_bytes())
            if len(data) > 12 and not f.name.startswith("."):
                data[12] ^= 0x20  # inside the first vector's bitmap
                f.write_bytes(bytes(data))
                f.with_name(f".{f.name}.crc").unlink(missing_ok=True)  # Lamina's own checks, not Hadoop's
                damaged.append(f.name)
        with pytest.raises(lamina.CorruptFileException) as excinfo:
            spark.sql(f"SELECT * FROM {CAT}.{DB}.{copy}").collect()
        text = error_text(excinfo)
        assert f"{copy}/index/index-" in text and any(name in text for name in damaged), text


def test_table_indexes_lists_the_vectors_of_the_snapshot(spark, paimon_dv):
    """`$table_indexes` (Paimon's columns): the rows of the files above level 0 less the rows their
    vectors delete are the table's rows."""
    snapshots, _ = paimon_dv
    expected = _expected()
    for table, at in (("pk", None), ("pk", "pk_deleted"), ("ap", None)):
        version = f" VERSION AS OF {snapshots[at]}" if at else ""
        indexes = sql_rows(spark, f"SELECT index_type, bucket, dv_ranges FROM {CAT}.{DB}.`{table}$table_indexes`{version}")
        assert indexes and {r[0] for r in indexes} == {"DELETION_VECTORS"}
        deleted = {r["f0"]: r["_CARDINALITY"] for i in indexes for r in (i[2] or [])}
        files = sql_rows(spark, f"SELECT file_path, record_count FROM {CAT}.{DB}.`{table}$files`{version} WHERE level > 0"
                         if table == "pk" else f"SELECT file_path, record_count FROM {CAT}.{DB}.`{table}$files`{version}")
        names = {p.rsplit("/", 1)[-1] for p, _ in files}
        assert set(deleted) <= names
        assert sum(n for _, n in files) - sum(deleted.values()) == len(expected[at or table])


@pytest.mark.parametrize("table", ["pk", "pkp"])
def test_pypaimon_reads_the_primary_key_tables_as_lamina_does(spark, paimon_dv, paimon_catalog, table):
    """A third reader of the same vectors: pypaimon 2.1."""
    t = paimon_catalog.get_table(f"{DB}.{table}")
    builder = t.new_read_builder()
    splits = builder.new_scan().plan().splits()
    got = builder.new_read().to_arrow(splits).to_pylist()
    assert _sorted(tuple(r.values()) for r in got) == _sorted(sql_rows(spark, f"SELECT * FROM {CAT}.{DB}.{table}"))


def test_paimon_reads_and_writes_lamina_append_tables_with_vectors(spark, warehouse, paimon_dv):
    """An append table Lamina created, whose DELETE, UPDATE and MERGE marked rows in vectors: Paimon's
    connector reads it, then deletes rows of the same files (reading Lamina's index files to add to
    them), and Lamina reads Paimon's result."""
    name = f"{CAT}.{DB}.lap"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, p STRING) PARTITIONED BY (p) TBLPROPERTIES ({DV})")
    spark.sql(f"INSERT INTO {name} SELECT id, concat('a', id), concat('p', id % 2) FROM range(0, 40)")
    spark.sql(f"DELETE FROM {name} WHERE id % 4 = 0")
    spark.sql(f"UPDATE {name} SET v = 'u' WHERE id % 5 = 1")
    spark.sql(f"MERGE INTO {name} t USING (SELECT 3 AS id UNION ALL SELECT 77) s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET v = 'm' WHEN NOT MATCHED THEN INSERT (id, v, p) VALUES (s.id, 'n', 'p1')")
    model = {i: ("u" if i % 5 == 1 else f"a{i}", f"p{i % 2}") for i in range(40) if i % 4 != 0}
    model[3] = ("m", "p1")
    model[77] = ("n", "p1")
    assert _sorted(sql_rows(spark, f"SELECT * FROM {name}")) == _sorted((k,) + r for k, r in model.items())
    after = {k: r for k, r in model.items() if k % 3 != 0}
    paimon = run_sql(warehouse, [f"SELECT * FROM paimon.{DB}.lap", f"DELETE FROM paimon.{DB}.lap WHERE id % 3 = 0",
                                 f"SELECT * FROM paimon.{DB}.lap"])
    assert _sorted(paimon[0]) == _sorted((k,) + r for k, r in model.items())
    assert _sorted(paimon[2]) == _sorted((k,) + r for k, r in after.items())
    assert _sorted(sql_rows(spark, f"SELECT * FROM {name}")) == _sorted((k,) + r for k, r in after.items())


def _index_manifest(root, snapshot_id):
    """The snapshot (as a dict) and its index manifest: Avro schema, codec and records (none without one)."""
    snap = json.loads((root / "snapshot" / f"snapshot-{snapshot_id}").read_text())
    if not snap.get("indexManifest"):
        return snap, None, None, []
    with open(root / "manifest" / snap["indexManifest"], "rb") as f:
        reader = fastavro.reader(f)
        return snap, reader.writer_schema, reader.codec, list(reader)


def _indexed_files(warehouse, table, snapshot_id):
    """The data files the index manifest of a snapshot lists vectors of."""
    entries = _index_manifest(table_path(warehouse, DB, table), snapshot_id)[3]
    return {r["f0"] for e in entries for r in (e["_DELETIONS_VECTORS_RANGES"] or [])}


def _with_stale_vector(warehouse, table, stale_snapshot, latest):
    """Makes the index manifest of snapshot `latest` also list the index entry that held, at snapshot
    `stale_snapshot`, the vector of a data file that `latest` no longer holds: the state in which
    Paimon's writers leave a bucket after compacting a file away (its reader ignores such a vector).
    Returns the name of the data file whose vector is stale."""
    root = table_path(warehouse, DB, table)
    snap, schema, codec, current = _index_manifest(root, latest)
    _, _, _, old = _index_manifest(root, stale_snapshot)
    live_vectors = _indexed_files(warehouse, table, latest)
    live_files = {p.name for p in root.glob("bucket-*/data-*")}  # a superset of the live files
    stale = [e for e in old if e["_FILE_NAME"] not in {c["_FILE_NAME"] for c in current}]
    assert stale, "no index entry of the earlier snapshot is gone from the latest"
    names = [r["f0"] for r in stale[0]["_DELETIONS_VECTORS_RANGES"]]
    assert names and not set(names) & live_vectors and set(names) <= live_files
    name = f"index-manifest-{uuid.uuid4()}-0"
    with open(root / "manifest" / name, "wb") as f:
        fastavro.writer(f, schema, current + stale[:1], codec=codec)
    snap["indexManifest"] = name
    (root / "snapshot" / f"snapshot-{latest}").write_text(json.dumps(snap))
    return names[0]


def test_a_vector_paimon_left_behind_with_a_compacted_file_is_ignored_and_dropped(spark, warehouse):
    """A primary-key table Paimon compacted and upserted into, whose index manifest also lists the vector
    of a data file compacted away: Lamina reads it as Paimon does, ignoring that vector; Lamina's
    INSERT, DELETE, MERGE and compaction write into it (the compaction's rewritten index leaves the
    vector out), Paimon's connector reads the result and writes more, and Lamina reads that."""
    require_paimon()
    t = "stale"
    statements = [
        f"CREATE DATABASE IF NOT EXISTS paimon.{DB}",
        f"CREATE TABLE paimon.{DB}.{t} (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', {DV})",
        f"INSERT INTO paimon.{DB}.{t} SELECT id, concat('a', id) FROM range(0, 20) AS t(id)",
        f"CALL paimon.sys.compact(table => '{DB}.{t}')",
        f"INSERT INTO paimon.{DB}.{t} SELECT id, concat('b', id) FROM range(0, 20, 3) AS t(id)",
        _snapshot(t),  # its compaction marked rows of the top-level file in a vector
        f"CALL paimon.sys.compact(table => '{DB}.{t}')",  # rewrites that file: its vector goes
        f"INSERT INTO paimon.{DB}.{t} SELECT id, concat('c', id) FROM range(0, 20, 4) AS t(id)",
        _snapshot(t),
    ]
    results = run_sql(warehouse, statements)
    marked, latest = results[5][0][0], results[8][0][0]
    model = {i: "c" if i % 4 == 0 else "b" if i % 3 == 0 else "a" for i in range(20)}
    model = {i: f"{p}{i}" for i, p in model.items()}
    stale = _with_stale_vector(warehouse, t, marked, latest)
    assert stale in _indexed_files(warehouse, t, latest)
    assert _sorted(run_sql(warehouse, [f"SELECT * FROM paimon.{DB}.{t}"])[0]) == _sorted(model.items())
    name = f"{CAT}.{DB}.{t}"
    assert _sorted(sql_rows(spark, f"SELECT * FROM {name}")) == _sorted(model.items())

    spark.sql(f"INSERT INTO {name} VALUES (1, 'w'), (100, 'n')").collect()
    spark.sql(f"DELETE FROM {name} WHERE id = 2").collect()
    spark.sql(f"MERGE INTO {name} t USING (SELECT 5 AS id, 'm' AS v UNION ALL SELECT 6, 'x') s ON t.id = s.id "
              "WHEN MATCHED AND s.v = 'x' THEN DELETE WHEN MATCHED THEN UPDATE SET *").collect()
    spark.sql(f"CALL {CAT}.sys.compact(table => '{DB}.{t}')").collect()
    model.update({1: "w", 100: "n", 5: "m"})
    for k in (2, 6):
        model.pop(k)
    assert _sorted(sql_rows(spark, f"SELECT * FROM {name}")) == _sorted(model.items())
    # the index manifest itself, not only what reads keep of it: the compaction's index left the vector out
    assert stale not in _indexed_files(warehouse, t, snapshot_ids(warehouse, DB, t)[-1])

    paimon = run_sql(warehouse, [f"SELECT * FROM paimon.{DB}.{t}",
                                 f"INSERT INTO paimon.{DB}.{t} VALUES (3, 'p'), (200, 'q')",
                                 f"DELETE FROM paimon.{DB}.{t} WHERE id = 7",
                                 f"SELECT * FROM paimon.{DB}.{t}"])
    assert _sorted(paimon[0]) == _sorted(model.items())
    model.update({3: "p", 200: "q"})
    model.pop(7)
    assert _sorted(paimon[3]) == _sorted(model.items())
    assert _sorted(sql_rows(spark, f"SELECT * FROM {name}")) == _sorted(model.items())
