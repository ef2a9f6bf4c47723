"""Compaction of primary-key tables: `CALL <catalog>.sys.compact` (minor and full, all or some
partitions), compaction racing appends from other threads, and the same work as a separate process
(`spark-submit --class lamina.jobs.Compact` and `python -m lamina compact`)."""

import os
import subprocess
import sys
import threading

import fastavro
import pytest

from _support import error_text, read_snapshot, snapshot_ids, sorted_tuples, sql_rows, table_path, unchanged

CAT = "lamina"
TOP_LEVEL = 5  # num-levels defaults to num-sorted-run.compaction-trigger (5) + 1


def create_pk(spark, db, partitioned=False, props=None):
    name = f"{CAT}.{db}.t"
    columns = "p STRING, id INT, v STRING" if partitioned else "id INT, v STRING"
    options = {"primary-key": "p,id" if partitioned else "id", "bucket": "2", **(props or {})}
    spark.sql(f"CREATE TABLE {name} ({columns}){' PARTITIONED BY (p)' if partitioned else ''} "
              f"TBLPROPERTIES ({', '.join(f'{k!r} = {v!r}' for k, v in options.items())})")
    return name


def write_runs(spark, name, partitions=(None,), runs=3):
    """`runs` overlapping upserts (ids 0..9, then 5..14, ...) into each partition: sorted runs."""
    for r in range(runs):
        for p in partitions:
            prefix = f"'{p}', " if p else ""
            spark.sql(f"INSERT INTO {name} SELECT {prefix}CAST(id AS INT), 'run{r}' "
                      f"FROM range({r * 5}, {r * 5 + 10})")


def levels(spark, db, where=""):
    return sorted(r[0] for r in spark.sql(f"SELECT level FROM {CAT}.{db}.`t$files` {where}").collect())


def commit_kinds(spark, db):
    return [r[0] for r in spark.sql(f"SELECT commit_kind FROM {CAT}.{db}.`t$snapshots` "
                                    "ORDER BY snapshot_id").collect()]


def call_compact(spark, db, **args):
    arguments = ", ".join([f"table => '{db}.t'"] + [f"{k} => '{v}'" for k, v in args.items()])
    return spark.sql(f"CALL {CAT}.sys.compact({arguments})").collect()[0][0]


def delta_entries(warehouse, db, snapshot_id):
    """(kind, level, record count) of the entries in a snapshot's delta manifests; kind 0 = ADD, 1 = DELETE."""
    root = table_path(warehouse, db, "t")
    snapshot = read_snapshot(warehouse, db, "t", snapshot_id)
    entries = []
    with open(root / "manifest" / snapshot["deltaManifestList"], "rb") as f:
        manifests = [m["_FILE_NAME"] for m in fastavro.reader(f)]
    for m in manifests:
        with open(root / "manifest" / m, "rb") as f:
            entries += [(e["_KIND"], e["_FILE"]["_LEVEL"], e["_FILE"]["_ROW_COUNT"]) for e in fastavro.reader(f)]
    return sorted(entries)


EXPECTED = sorted_tuples([(i, "run0") for i in range(5)] + [(i, "run1") for i in range(5, 10)]
                         + [(i, "run2") for i in range(10, 20)])


# -- CALL sys.compact ----------------------------------------------------------------------------

def test_full_compaction_moves_every_file_to_the_top_level(spark, warehouse, db):
    # without compact_strategy, CALL sys.compact is a full compaction, as Paimon's is in a batch job
    name = create_pk(spark, db)
    write_runs(spark, name)
    assert sql_rows(spark, f"SELECT * FROM {name}") == EXPECTED
    before = levels(spark, db)
    assert set(before) == {0} and len(before) >= 4, before
    counts_before = sorted(r[0] for r in spark.sql(f"SELECT record_count FROM {CAT}.{db}.`t$files`").collect())

    snapshot = call_compact(spark, db)
    assert snapshot == max(snapshot_ids(warehouse, db, "t")) == 4
    assert sql_rows(spark, f"SELECT * FROM {name}") == EXPECTED
    after = levels(spark, db)
    assert set(after) == {TOP_LEVEL} and len(after) <= 2, after
    assert commit_kinds(spark, db) == ["APPEND", "APPEND", "APPEND", "COMPACT"]
    # The COMPACT snapshot deletes every level-0 file and adds the merged ones (20 rows, no duplicates).
    entries = delta_entries(warehouse, db, 4)
    assert [e for e in entries if e[0] == 1] == [(1, 0, n) for n in counts_before]
    assert {e[1] for e in entries if e[0] == 0} == {TOP_LEVEL}
    assert sum(e[2] for e in entries if e[0] == 0) == 20
    assert read_snapshot(warehouse, db, "t", 4)["totalRecordCount"] == 20
    assert sql_rows(spark, f"SELECT sum(num_deleted_files) FROM {CAT}.{db}.`t$manifests`") == [(len(before),)]
    # Old snapshots still read their files.
    assert sql_rows(spark, f"SELECT count(*) FROM {name} VERSION AS OF 1") == [(10,)]

    # Nothing left to do: a second full compaction of a single top-level run commits nothing.
    assert call_compact(spark, db, compact_strategy="full") is None
    assert snapshot_ids(warehouse, db, "t") == [1, 2, 3, 4]


def test_full_compaction_rolls_the_top_run_into_files_that_do_not_overlap(spark, db, paimon_catalog):
    name = create_pk(spark, db, props={"bucket": "1", "target-file-size": "4 kb"})
    for r in range(3):
        spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), repeat('x', 40) || '{r}' "
                  f"FROM range({r * 500}, {r * 500 + 1000})")
    expected = sql_rows(spark, f"SELECT count(*), min(id), max(id), count(DISTINCT v) FROM {name}")
    assert expected == [(2000, 0, 1999, 3)]
    call_compact(spark, db, compact_strategy="full")
    files = sql_rows(spark, f"SELECT level, min_key, max_key, record_count FROM {CAT}.{db}.`t$files`")
    assert len(files) >= 2 and {f[0] for f in files} == {TOP_LEVEL}, files
    assert sum(f[3] for f in files) == 2000
    ranges = sorted((int(f[1].strip("[]")), int(f[2].strip("[]"))) for f in files)
    assert all(hi < next_lo for (_, hi), (next_lo, _) in zip(ranges, ranges[1:])), ranges
    assert sql_rows(spark, f"SELECT count(*), min(id), max(id), count(DISTINCT v) FROM {name}") == expected
    assert sql_rows(spark, f"SELECT v FROM {name} WHERE id IN (0, 700, 1999)") == [
        ("x" * 40 + "0",), ("x" * 40 + "1",), ("x" * 40 + "2",)]
    builder = paimon_catalog.get_table(f"{db}.t").new_read_builder()
    got = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    assert got.num_rows == 2000 and sorted(got.column("id").to_pylist()) == list(range(2000))


def test_minor_compaction_merges_sorted_runs_once_the_trigger_is_reached(spark, warehouse, db):
    name = create_pk(spark, db, props={"write-only": "true", "num-sorted-run.compaction-trigger": "3"})
    write_runs(spark, name, runs=4)
    expected = sql_rows(spark, f"SELECT * FROM {name}")
    assert len(expected) == 25
    before = levels(spark, db)
    assert set(before) == {0}, before

    snapshot = call_compact(spark, db, compact_strategy="minor")
    assert snapshot == max(snapshot_ids(warehouse, db, "t")) == 5
    assert commit_kinds(spark, db)[-1] == "COMPACT"
    after = levels(spark, db)
    assert after.count(0) < before.count(0), (before, after)
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected


def test_minor_compaction_keeps_deletes_that_older_levels_still_need(spark, db):
    # A delete record may only be dropped when it is written to the top level: a minor compaction
    # into a middle level that dropped it would let the deleted row come back from the top level.
    name = create_pk(spark, db, props={"write-only": "true", "num-sorted-run.compaction-trigger": "3",
                                       "bucket": "1"})
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), sha2(CAST(id AS STRING), 512) FROM range(0, 400)")
    call_compact(spark, db, compact_strategy="full")
    top = 3  # num-levels defaults to the trigger + 1
    spark.sql(f"DELETE FROM {name} WHERE id IN (1, 2)")
    spark.sql(f"INSERT INTO {name} VALUES (500, 'a')")
    spark.sql(f"INSERT INTO {name} VALUES (501, 'b')")
    assert sorted(levels(spark, db)) == [0, 0, 0, top]
    assert call_compact(spark, db, compact_strategy="minor") is not None
    after = levels(spark, db)
    assert top in after and after.count(0) == 0 and len(after) == 2, after
    assert sql_rows(spark, f"SELECT count(*) FROM {name} WHERE id IN (1, 2)") == [(0,)]
    assert sql_rows(spark, f"SELECT count(*) FROM {name}") == [(400,)]
    call_compact(spark, db, compact_strategy="full")
    assert sql_rows(spark, f"SELECT count(*) FROM {name}") == [(400,)]
    # At the top level the delete records are gone: the files hold exactly the live rows.
    assert sql_rows(spark, f"SELECT sum(record_count) FROM {CAT}.{db}.`t$files`") == [(400,)]


def test_minor_compaction_with_nothing_to_do_commits_nothing(spark, warehouse, db):
    name = create_pk(spark, db)
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'b')")
    assert call_compact(spark, db, compact_strategy="minor") is None
    assert snapshot_ids(warehouse, db, "t") == [1]
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "a"), (2, "b")]


def _codecs_by_level(spark, db):
    """{level: the Parquet codecs of the columns of the table's live data files}, from their footers (read by
    parquet-mr: pyarrow has no name for the LZ4 codec that Spark and Paimon write)."""
    jvm = spark._jvm
    conf = spark._jsc.hadoopConfiguration()
    out = {}
    for path, level in sql_rows(spark, f"SELECT file_path, level FROM {CAT}.{db}.`t$files`"):
        file = jvm.org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(jvm.org.apache.hadoop.fs.Path(path), conf)
        reader = jvm.org.apache.parquet.hadoop.ParquetFileReader.open(file)
        try:
            out.setdefault(level, set()).update(
                column.getCodec().name() for block in reader.getFooter().getBlocks() for column in block.getColumns())
        finally:
            reader.close()
    return out


def test_file_compression_per_level_sets_the_codec_of_each_level(spark, db):
    # write-only deletion vectors: writes leave level-0 files, a minor compaction pushes them up by lookup
    name = create_pk(spark, db, props={"bucket": "1", "deletion-vectors.enabled": "true", "write-only": "true",
                                       "file.compression.per.level": "0:lz4, 5:GZIP"})
    spark.sql(f"INSERT INTO {name} SELECT id, concat('a', id) FROM range(0, 1000)")
    spark.sql(f"INSERT INTO {name} SELECT id, concat('b', id) FROM range(0, 1000, 2)")
    assert _codecs_by_level(spark, db) == {0: {"LZ4"}}
    call_compact(spark, db)  # full: everything to the top level
    assert _codecs_by_level(spark, db) == {TOP_LEVEL: {"GZIP"}}
    # two overlapping level-0 files merge into the level below the top, which no pair names: file.compression
    spark.sql(f"INSERT INTO {name} VALUES (1, 'c1'), (3, 'c3')")
    spark.sql(f"INSERT INTO {name} VALUES (3, 'd3'), (5, 'd5')")
    assert _codecs_by_level(spark, db) == {0: {"LZ4"}, TOP_LEVEL: {"GZIP"}}
    call_compact(spark, db, compact_strategy="minor")
    assert _codecs_by_level(spark, db) == {TOP_LEVEL - 1: {"ZSTD"}, TOP_LEVEL: {"GZIP"}}
    changed = {1: "c1", 3: "d3", 5: "d5"}
    expected = [(i, changed.get(i, f"b{i}" if i % 2 == 0 else f"a{i}")) for i in range(1000)]
    assert sorted(sql_rows(spark, f"SELECT id, v FROM {name}")) == expected


def test_a_bad_file_compression_per_level_names_the_table_option_and_value(spark, db):
    with pytest.raises(Exception) as excinfo:
        create_pk(spark, db, props={"file.compression.per.level": "0:lz4,1:brotli"})
    assert error_text(excinfo).splitlines()[0] == (
        f"Invalid value '0:lz4,1:brotli' for option 'file.compression.per.level' of table {db}.t: expected level:codec "
        "pairs, e.g. 0:lz4,1:zstd; '1:brotli' is not one (a level of 0 or more, a codec of zstd, snappy, lz4, gzip, "
        "none, uncompressed)")


def test_compaction_of_one_partition(spark, warehouse, db):
    name = create_pk(spark, db, partitioned=True)
    write_runs(spark, name, partitions=("x", "y"), runs=2)
    expected = sql_rows(spark, f"SELECT * FROM {name}")
    assert len(expected) == 30
    call_compact(spark, db, partitions="p=x", compact_strategy="full")
    assert set(levels(spark, db, "WHERE partition LIKE '%x%'")) == {TOP_LEVEL}
    assert set(levels(spark, db, "WHERE partition LIKE '%y%'")) == {0}
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected
    assert commit_kinds(spark, db)[-1] == "COMPACT"
    entries = delta_entries(warehouse, db, max(snapshot_ids(warehouse, db, "t")))
    assert sum(e[2] for e in entries if e[0] == 0) == 15  # only partition x's merged rows


@pytest.mark.parametrize("args, words", [
    ({"compact_strategy": "bogus"}, ["compact_strategy", "bogus", "full", "minor"]),
    ({"partitions": "q=1"}, ["'q' is not a partition column of table", "p"]),
    ({"partitions": "p"}, ["Partition 'p' must be written as column=value"]),
], ids=["strategy", "not-a-partition-column", "malformed-partition"])
def test_compact_procedure_bad_arguments(spark, warehouse, db, args, words):
    name = create_pk(spark, db, partitioned=True)
    write_runs(spark, name, partitions=("x",), runs=2)
    with unchanged(spark, warehouse, db, "t"):
        with pytest.raises(Exception) as excinfo:
            call_compact(spark, db, **args)
        for word in words:
            assert word in error_text(excinfo), error_text(excinfo)[:800]


def test_compact_procedure_missing_table(spark, db):
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.nope')").collect()
    assert f"{db}.nope" in error_text(excinfo)


def test_compact_procedure_on_append_table(spark, warehouse, db):
    """An append table's files of a bucket are rewritten into one (target-file-size); a bucket of one file
    is left alone; minor compaction waits for compaction.min.file-num small files."""
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id INT, v STRING) TBLPROPERTIES ('compaction.min.file-num' = '3')")
    spark.sql(f"INSERT INTO {CAT}.{db}.t SELECT /*+ COALESCE(1) */ 1, 'a'")
    with unchanged(spark, warehouse, db, "t"):
        call_compact(spark, db, compact_strategy="full")
    spark.sql(f"INSERT INTO {CAT}.{db}.t SELECT /*+ COALESCE(1) */ 2, 'b'")
    with unchanged(spark, warehouse, db, "t"):
        call_compact(spark, db, compact_strategy="minor")
    spark.sql(f"INSERT INTO {CAT}.{db}.t SELECT /*+ COALESCE(1) */ 3, 'c'")
    call_compact(spark, db, compact_strategy="minor")
    snapshot = read_snapshot(warehouse, db, "t", max(snapshot_ids(warehouse, db, "t")))
    assert snapshot["commitKind"] == "COMPACT"
    assert sql_rows(spark, f"SELECT count(*), sum(record_count) FROM {CAT}.{db}.`t$files`") == [(1, 3)]
    assert sorted_tuples(sql_rows(spark, f"SELECT * FROM {CAT}.{db}.t")) == [(1, "a"), (2, "b"), (3, "c")]


# -- compaction racing appends --------------------------------------------------------------------

@pytest.mark.parametrize("writers_compact", [False, True], ids=["write-only", "writers-compact-too"])
def test_compaction_concurrent_with_appends_loses_nothing(spark, db, writers_compact):
    # With 'write-only' the appends never compact, so only the CALLs rewrite files; without it the
    # appends compact their buckets as well. Either way no append may fail or lose a row; a CALL
    # that loses a race may fail with a retryable commit conflict, and is retried.
    props = {"num-sorted-run.compaction-trigger": "2"} if writers_compact else {"write-only": "true"}
    name = create_pk(spark, db, props=props)
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), 'seed' FROM range(0, 10)")
    append_errors, compact_errors, compactions = [], [], []
    done = threading.Event()

    def appender(first):
        try:
            for n in range(4):
                start = first + n * 10
                spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), 'w{first}' FROM range({start}, {start + 10})")
        except Exception as e:  # reported below with the test's assertion
            append_errors.append(e)

    def compactor():
        while not done.is_set() or not compactions:
            try:
                compactions.append(call_compact(spark, db, compact_strategy="full"))
            except Exception as e:
                compact_errors.append(e)
                if "CommitConflictException" not in type(e).__name__ + str(e) and "conflicts with" not in str(e):
                    return

    threads = [threading.Thread(target=appender, args=(first,)) for first in (1000, 2000)]
    compacting = threading.Thread(target=compactor)
    compacting.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    done.set()
    compacting.join(timeout=300)
    assert not append_errors, [str(e)[:3000] for e in append_errors]
    assert all("conflicts with" in str(e) for e in compact_errors), [str(e)[:500] for e in compact_errors]
    assert any(s is not None for s in compactions), compactions

    ids = [r[0] for r in spark.sql(f"SELECT id FROM {name}").collect()]
    assert sorted(ids) == list(range(10)) + list(range(1000, 1040)) + list(range(2000, 2040))
    kinds = commit_kinds(spark, db)
    assert kinds.count("APPEND") == 9 and "COMPACT" in kinds
    # A last full compaction keeps every row too.
    call_compact(spark, db, compact_strategy="full")
    assert sql_rows(spark, f"SELECT count(*), count(DISTINCT id) FROM {name}") == [(90, 90)]
    # num-levels defaults to the compaction trigger + 1
    assert set(levels(spark, db)) == {2 if writers_compact else TOP_LEVEL}


# -- separate processes ---------------------------------------------------------------------------

def spark_submit():
    from pyspark.find_spark_home import _find_spark_home

    return os.path.join(_find_spark_home(), "bin", "spark-submit")


def run(command):
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


def submit_job(warehouse, *args):
    import lamina

    return run([spark_submit(), "--master", "local[1]", "--conf", "spark.ui.enabled=false",
                "--class", "lamina.jobs.Compact", lamina.jar_path(), "--warehouse", warehouse, *args])


def test_spark_submit_job_and_python_cli_compact(spark, warehouse, db):
    name = create_pk(spark, db, partitioned=True)
    write_runs(spark, name, partitions=("x", "y"), runs=2)
    expected = sql_rows(spark, f"SELECT * FROM {name}")

    result = submit_job(warehouse, "--table", f"{db}.t", "--partition", "p=x", "--full")
    assert result.returncode == 0, result.stderr[-4000:]
    assert f"compacted {db}.t: snapshot 5" in result.stdout
    assert set(levels(spark, db, "WHERE partition LIKE '%x%'")) == {TOP_LEVEL}
    assert set(levels(spark, db, "WHERE partition LIKE '%y%'")) == {0}
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected

    result = run([sys.executable, "-m", "lamina", "compact", "--warehouse", warehouse, "--table", f"{db}.t",
                  "--full", "--master", "local[1]", "--conf", "spark.ui.enabled=false"])
    assert result.returncode == 0, result.stderr[-4000:]
    assert f"compacted {db}.t: snapshot 6" in result.stdout
    assert set(levels(spark, db)) == {TOP_LEVEL}
    assert sql_rows(spark, f"SELECT * FROM {name}") == expected
    assert commit_kinds(spark, db) == ["APPEND"] * 4 + ["COMPACT", "COMPACT"]


def test_spark_submit_job_bad_arguments(spark, warehouse, db):
    create_pk(spark, db)
    result = submit_job(warehouse, "--table", f"{db}.t", "--bogus")
    assert result.returncode != 0
    assert "Unknown argument '--bogus'" in result.stderr, result.stderr[-3000:]

    result = run([sys.executable, "-m", "lamina", "compact", "--warehouse", warehouse, "--table", f"{db}.nope",
                  "--master", "local[1]", "--conf", "spark.ui.enabled=false"])
    assert result.returncode != 0
    assert f"{db}.nope" in result.stderr, result.stderr[-3000:]
    assert snapshot_ids(warehouse, db, "t") == []
