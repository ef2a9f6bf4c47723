"""What Spark's UI shows of Lamina: the scan's and the write's custom metrics, read back from Spark's
SQL status store (what the SQL tab shows); the description and tag of a compaction's Spark jobs, read
from the application status store (what the jobs page shows); and the progress lines of a compaction."""

import argparse

import pytest

import lamina
from lamina._cli import show_progress
from _support import drain_listeners, lamina_metrics, scala_list, sql_rows

CAT = "lamina"


def files_of(spark, db, columns="bucket, record_count, file_size_in_bytes"):
    """The data files of table `t` of `db` (its `$files` system table)."""
    return sql_rows(spark, f"SELECT {columns} FROM {CAT}.{db}.`t$files`")


def test_scan_and_write_metrics_of_an_append_table(spark, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (id INT, v STRING) TBLPROPERTIES ('write-only' = 'true')")
    written = lamina_metrics(spark, lambda: spark.sql(f"INSERT INTO {t} SELECT id, 'x' FROM range(0, 10)").collect())
    files = files_of(spark, db)
    assert written == {"lamina data files written": len(files), "lamina records written": 10,
                       "lamina data file bytes written": sum(size for _, _, size in files)}
    for start in (10, 20):
        spark.sql(f"INSERT INTO {t} SELECT id, 'x' FROM range({start}, {start + 10})")
    files = files_of(spark, db)

    read = lamina_metrics(spark, lambda: spark.table(t).collect())
    assert read["lamina data files read"] == len(files) >= 3
    assert read["lamina data file bytes read"] == sum(size for _, _, size in files)
    assert read["lamina data files skipped by statistics"] == 0

    # ids 20..29 are in the last insert's files only: the others' statistics rule them out
    filtered = lamina_metrics(spark, lambda: spark.sql(f"SELECT * FROM {t} WHERE id >= 20").collect())
    skipped = filtered["lamina data files skipped by statistics"]
    assert skipped >= 2
    assert filtered["lamina data files read"] == len(files) - skipped


def test_rows_removed_by_deletion_vectors(spark, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (id INT, v STRING) TBLPROPERTIES ('deletion-vectors.enabled' = 'true')")
    spark.sql(f"INSERT INTO {t} SELECT id, 'x' FROM range(0, 20)")
    spark.sql(f"DELETE FROM {t} WHERE id < 3 OR id = 11")
    read = lamina_metrics(spark, lambda: spark.table(t).collect())
    assert read["lamina rows removed by deletion vectors"] == 4
    assert read["lamina data files read"] == len(files_of(spark, db))


def _jobs(spark):
    """(description, tags) of every job the application status store knows."""
    drain_listeners(spark)
    out = []
    for job in scala_list(spark._jsc.sc().statusStore().jobsList(None)):
        description = job.description()
        out.append((description.get() if description.isDefined() else None, set(scala_list(job.jobTags()))))
    return out


def _stages(spark):
    """{stage id: {accumulator name: value}} of every stage the application status store knows."""
    drain_listeners(spark)
    return {stage.stageId(): {a.name(): int(a.value()) for a in scala_list(stage.accumulatorUpdates())}
            for stage in scala_list(spark._jsc.sc().statusStore().stageList(
                None, False, False, spark._sc._gateway.new_array(spark._jvm.double, 0), None))}


def _jvm_stderr(spark, action):
    """What `action` printed to the driver JVM's stderr."""
    jvm = spark._jvm
    buffer = jvm.java.io.ByteArrayOutputStream()
    previous = jvm.System.err
    jvm.System.setErr(jvm.java.io.PrintStream(buffer, True))
    try:
        action()
    finally:
        jvm.System.setErr(previous)
    return buffer.toString()


def _pk_table(spark, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (id INT NOT NULL, p INT NOT NULL, v STRING) PARTITIONED BY (p) "
              "TBLPROPERTIES ('primary-key' = 'id,p', 'bucket' = '4', 'write-only' = 'true')")
    for i in range(2):
        spark.sql(f"INSERT INTO {t} SELECT id, p, 'v{i}' FROM (SELECT id, id % 2 AS p FROM range(0, 40))")
    return t


def test_compaction_jobs_are_described_and_say_their_progress(spark, db):
    t = _pk_table(spark, db)
    def partition_files():
        return [(b, size) for part, b, size in files_of(spark, db, "partition, bucket, file_size_in_bytes")
                if "1" in part]

    before = partition_files()
    buckets = len({b for b, _ in before})
    stages = set(_stages(spark))

    printed = _jvm_stderr(spark, lambda: lamina.compact(spark, f"{db}.t", partitions={"p": 1}, full=True, progress=True))

    jobs = [j for j in _jobs(spark) if j[0] and j[0].startswith(f"lamina: compact {db}.t ")]
    described = f"lamina: compact {db}.t partition p=1, {buckets} buckets"
    assert [d for d, _ in jobs] == [described]
    assert all("lamina" in tags for _, tags in jobs)
    assert spark.sparkContext.getLocalProperty("spark.job.description") is None  # restored
    lines = [line for line in printed.splitlines() if line.startswith(f"lamina: compact {db}.t: ")]
    assert lines, printed
    done = [int(line.split(": ")[-1].split("/")[0]) for line in lines]
    assert done == sorted(done) and lines[-1] == f"lamina: compact {db}.t: {buckets}/{buckets} buckets done"

    # the compaction's stage shows what its tasks compacted and wrote
    after = partition_files()
    counted = {}
    for stage, accumulators in _stages(spark).items():
        if stage not in stages:
            for name, value in accumulators.items():
                counted[name] = counted.get(name, 0) + value
    assert counted == {"lamina files compacted": len(before), "lamina bytes compacted": sum(s for _, s in before),
                       "lamina compacted files written": len(after),
                       "lamina compacted bytes written": sum(s for _, s in after)}

    spark.sql(f"INSERT INTO {t} VALUES (1, 1, 'again')")
    quiet = _jvm_stderr(spark, lambda: lamina.compact(spark, f"{db}.t", partitions={"p": 1}, full=True))
    assert f"lamina: compact {db}.t: " not in quiet


def test_a_sorted_rewrite_says_its_progress_per_key_range(spark, db):
    t = f"{CAT}.{db}.t"
    # a small target file size, so that the sort writes several ranges of keys
    spark.sql(f"CREATE TABLE {t} (id INT, v STRING) TBLPROPERTIES ('write-only' = 'true', 'target-file-size' = '2 kb')")
    for start in (0, 500, 1000):
        spark.sql(f"INSERT INTO {t} SELECT id, repeat('x', 20) FROM range({start}, {start + 500})")
    printed = _jvm_stderr(spark, lambda: lamina.compact(spark, f"{db}.t", order_strategy="zorder",
                                                        order_by="id, v", progress=True))
    prefix = f"lamina: compact {db}.t, sorted: "
    lines = [line[len(prefix):] for line in printed.splitlines() if line.startswith(prefix)]
    assert len(lines) >= 2, printed
    ranges = int(lines[0].split("/")[1].split()[0])
    assert lines == [f"{i}/{ranges} key ranges written" for i in range(1, ranges + 1)]
    assert sorted(r[0] for r in sql_rows(spark, f"SELECT id FROM {t}")) == list(range(1500))

    quiet = _jvm_stderr(spark, lambda: lamina.compact(spark, f"{db}.t", order_strategy="order", order_by="id"))
    assert prefix not in quiet


LOOKUP_HITS, LOOKUP_MISSES = "lamina lookup cache hits", "lamina lookup cache misses"


def _lookup_accumulators(spark, action):
    """{accumulator name: value} of the lookup cache's accumulators on the stages that `action` ran."""
    stages = set(_stages(spark))
    action()
    counted = {}
    for stage, accumulators in _stages(spark).items():
        if stage not in stages:
            for name, value in accumulators.items():
                if name in (LOOKUP_HITS, LOOKUP_MISSES):
                    counted[name] = counted.get(name, 0) + value
    return counted


def test_lookup_cache_hits_and_misses_of_the_compaction_after_a_write(spark, db):
    # deletion vectors: each write's level-0 file is compacted at once, its keys looked up in the levels
    # left alone. A size ratio of 20% keeps the first write's large file out of the small upserts' compactions.
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', "
              "'deletion-vectors.enabled' = 'true', 'compaction.size-ratio' = '20')")

    def upsert(ids, value):
        query = f"INSERT INTO {t} SELECT id, concat('{value}', sha2(cast(id AS STRING), 256)) FROM {ids}"
        write = {}
        stages = _lookup_accumulators(spark, lambda: write.update(lamina_metrics(spark, lambda: spark.sql(query).collect())))
        # the write node shows what the stages of its compaction counted
        assert {k: v for k, v in write.items() if k in (LOOKUP_HITS, LOOKUP_MISSES)} == stages
        return write[LOOKUP_HITS], write[LOOKUP_MISSES]

    assert upsert("range(0, 5000)", "a") == (0, 0)  # nothing older to look into
    # 50 keys looked up in the first write's file: each lookup needs its bloom filter, index block and a
    # data block; the file's few pages are read once, then found in memory
    hits, misses = upsert("range(0, 100, 2)", "b")
    assert 0 < misses < 10 and hits + misses == 3 * 50, (hits, misses)
    # 50 other keys of the same pages of the same file, in the next write's compaction: all in memory
    assert upsert("range(1, 100, 2)", "c") == (3 * 50, 0)
    assert sql_rows(spark, f"SELECT substr(v, 1, 1), count(*) FROM {t} GROUP BY 1 ORDER BY 1") == [
        ("a", 4900), ("b", 50), ("c", 50)]


def test_lookup_cache_hits_and_misses_of_a_compaction_call(spark, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', "
              "'changelog-producer' = 'lookup', 'write-only' = 'true')")
    spark.sql(f"INSERT INTO {t} SELECT id, sha2(cast(id AS STRING), 256) FROM range(0, 5000)")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")  # the first file to the top level: nothing to look up
    spark.sql(f"INSERT INTO {t} SELECT id, 'new' FROM range(0, 40)")
    counted = _lookup_accumulators(
        spark, lambda: spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t', compact_strategy => 'minor')"))
    assert counted[LOOKUP_MISSES] > 0 and counted[LOOKUP_HITS] > counted[LOOKUP_MISSES], counted


def test_maintenance_procedures_describe_their_jobs(spark, db):
    _pk_table(spark, db)
    buckets = len(set(files_of(spark, db, "partition, bucket")))
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")
    described = [d for d, _ in _jobs(spark) if d and d.startswith(f"lamina: compact {db}.t")]
    assert described == [f"lamina: compact {db}.t 2 partitions, {buckets} buckets"]


@pytest.mark.parametrize("flag, tty, expected", [
    (None, True, True), (None, False, False), (True, False, True), (False, True, False)])
def test_the_cli_shows_progress_on_a_terminal_unless_told(flag, tty, expected):
    class Stream:
        def isatty(self):
            return tty

    assert show_progress(argparse.Namespace(progress=flag), Stream()) is expected


def test_progress_must_be_a_bool():
    with pytest.raises(ValueError, match="progress must be True or False, got 'yes'"):
        lamina.compact(None, "db.t", progress="yes")
