"""File indexes (Paimon's file-index format): bloom filters and bitmap indexes written for every data
file of a table that asks for them, embedded in the manifest or in a `<file>.index` file beside the
data file, and consulted at planning to skip files that cannot hold a row for an `=`, `IN` (or, by
bitmaps, `IS NULL`, `IS NOT NULL` and `<>`) condition. Each file
below holds keys that interleave with the others' (`k % files == file`), so the files' min/max
statistics cannot tell them apart: only the index can skip them."""

import glob
import os

import pytest

from _support import lamina_metrics, sorted_tuples, sql_rows, table_path
from paimon_connector import require_paimon, run_sql

CAT = "lamina"
BY_INDEX = "lamina data files skipped by file index"
BY_STATS = "lamina data files skipped by statistics"
FILES = 4
BLOOM = "'file-index.bloom-filter.columns' = 'k,s', 'file-index.bloom-filter.k.items' = '200', 'file-index.bloom-filter.k.fpp' = '0.01', " \
        "'file-index.bloom-filter.s.items' = '200', 'file-index.bloom-filter.s.fpp' = '0.01'"

BITMAP = "'file-index.bitmap.columns' = 'k,s'"


def interleaved(spark, table, files=FILES, rows=100):
    """`files` commits, commit f writing keys f, f + files, f + 2 * files, ...: one file each."""
    for f in range(files):
        spark.sql(f"INSERT INTO {table} SELECT id * {files} + {f}, 'v' || CAST(id * {files} + {f} AS STRING) "
                  f"FROM range(0, {rows}, 1, 1)")


def skipped(spark, query):
    out = {}
    metrics = lamina_metrics(spark, lambda: out.setdefault("rows", sql_rows(spark, query)))
    return out["rows"], metrics.get(BY_INDEX, 0), metrics.get(BY_STATS, 0)


def test_bloom_filters_skip_append_files_for_equal_and_in(spark, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k BIGINT, s STRING) TBLPROPERTIES ({BLOOM})")
    interleaved(spark, t)
    assert skipped(spark, f"SELECT k, s FROM {t} WHERE k = 41") == ([(41, "v41")], FILES - 1, 0)
    assert skipped(spark, f"SELECT k FROM {t} WHERE s = 'v42'") == ([(42,)], FILES - 1, 0)
    rows, by_index, _ = skipped(spark, f"SELECT k FROM {t} WHERE k IN (41, 45, 400001)")
    assert sorted_tuples(rows) == [(41,), (45,)] and by_index == FILES - 1
    # a value within every file's range that no file holds: every file skipped; an OR with an
    # unindexed condition skips none
    assert skipped(spark, f"SELECT k FROM {t} WHERE s = 'v41x'") == ([], FILES, 0)
    assert skipped(spark, f"SELECT k FROM {t} WHERE k = 41 OR s > 'v98'")[1] == 0
    spark.conf.set("spark.lamina.file-index.read.enabled", "false")
    try:
        assert skipped(spark, f"SELECT k, s FROM {t} WHERE k = 41") == ([(41, "v41")], 0, 0)
    finally:
        spark.conf.unset("spark.lamina.file-index.read.enabled")


def test_a_bloom_filter_on_a_column_it_cannot_index_is_refused_by_create_and_alter(spark, db):
    with pytest.raises(Exception, match="names column 'b' of type BOOLEAN, which bloom filters do not index"):
        spark.sql(f"CREATE TABLE {CAT}.{db}.bad (k BIGINT, b BOOLEAN) "
                  "TBLPROPERTIES ('file-index.bloom-filter.columns' = 'b')")
    spark.sql(f"CREATE TABLE {CAT}.{db}.ok (k BIGINT, b BOOLEAN)")
    with pytest.raises(Exception, match="names column 'nope', which the table does not have"):
        spark.sql(f"ALTER TABLE {CAT}.{db}.ok SET TBLPROPERTIES ('file-index.bloom-filter.columns' = 'nope')")


def test_index_files_beyond_the_threshold_are_read_checked_and_expired_with_their_data_files(spark, warehouse, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k BIGINT, s STRING) TBLPROPERTIES ({BLOOM}, "
              "'file-index.in-manifest-threshold' = '64 b')")
    interleaved(spark, t)
    bucket = table_path(warehouse, db, "t") / "bucket-0"
    index_files = sorted(glob.glob(str(bucket / "*.index")))
    assert len(index_files) == FILES
    data_files = sorted(os.path.basename(p) for (p,) in sql_rows(spark, f"SELECT file_path FROM {CAT}.{db}.`t$files`"))
    assert [os.path.basename(p) for p in index_files] == [f + ".index" for f in data_files]
    assert skipped(spark, f"SELECT k FROM {t} WHERE k = 41") == ([(41,)], FILES - 1, 0)
    # a damaged index fails the read, naming its file, rather than skip a file wrongly
    with open(index_files[0], "r+b") as f:
        f.write(b"\x00\x00\x00\x00")
    with pytest.raises(Exception, match=f"Corrupt file .*{os.path.basename(index_files[0])}.*file index magic"):
        sql_rows(spark, f"SELECT k FROM {t} WHERE k = 41")
    # rewritten away and expired: the old data files' index files go with them
    spark.sql(f"INSERT OVERWRITE {t} SELECT 1, 'one'")
    spark.sql(f"CALL {CAT}.sys.expire_snapshots(table => '{db}.t', retain_max => 1, retain_min => 1)")
    assert [p for p in index_files if os.path.exists(p)] == []
    kept = glob.glob(str(bucket / "*.index"))
    assert len(kept) == 1
    # orphan removal keeps the live file's index and removes one no manifest lists
    stray = bucket / "data-00000000-0000-0000-0000-000000000000-0.parquet.index"
    stray.write_bytes(b"x")
    spark.sql(f"CALL {CAT}.sys.remove_orphan_files(table => '{db}.t', older_than => '2999-01-01 00:00:00')")
    assert glob.glob(str(bucket / "*.index")) == kept
    assert skipped(spark, f"SELECT k, s FROM {t} WHERE k = 1") == ([(1, "one")], 0, 0)


@pytest.mark.parametrize("index", [BLOOM, BITMAP], ids=["bloom", "bitmap"])
def test_primary_key_tables_skip_by_value_indexes_only_where_no_merge_reads_the_file(spark, db, index):
    for dv in ("false", "true"):
        t = f"{CAT}.{db}.pk_{dv}"
        spark.sql(f"CREATE TABLE {t} (k BIGINT NOT NULL, s STRING) TBLPROPERTIES ('primary-key' = 'k', "
                  f"'bucket' = '1', 'deletion-vectors.enabled' = '{dv}', {index})")
        # three sorted runs (below the compaction trigger), then an update of key 41 in a fourth: the
        # older version's file still holds 'v41'
        interleaved(spark, t, files=3)
        spark.sql(f"INSERT INTO {t} VALUES (41, 'new')")
        files = sql_rows(spark, f"SELECT count(*) FROM {CAT}.{db}.`pk_{dv}$files` "
                                f"WHERE level > 0 OR {dv == 'false'}")[0][0]
        # key columns may always skip: a file without the key holds no version of it (the file of key
        # 41 alone goes by its key statistics)
        rows, by_index, by_stats = skipped(spark, f"SELECT k, s FROM {t} WHERE k = 42")
        assert rows == [(42, "v42")] and by_index + by_stats == files - 1 and by_index >= 1, (dv, by_index, files)
        rows, by_index, by_stats = skipped(spark, f"SELECT k, s FROM {t} WHERE s = 'v41'")
        assert rows == []
        # merged reads: a value index could drop the version that wins; with deletion vectors files
        # are read alone, and every file but the one whose vector deletes 'v41' may go
        if dv == "false":
            assert by_index == 0
        else:
            assert by_index >= 1 and by_index + by_stats == files - 1, (by_index, by_stats, files)
        assert sql_rows(spark, f"SELECT k FROM {t} WHERE s = 'new'") == [(41,)]


def test_paimon_and_lamina_read_each_others_bloom_filters(spark, warehouse, db):
    require_paimon()
    props = ("TBLPROPERTIES ('file-index.bloom-filter.columns' = 'k', 'file-index.bloom-filter.k.items' = '200', "
             "'file-index.bloom-filter.k.fpp' = '0.01')")
    inserts = [f"INSERT INTO paimon.{db}.by_paimon SELECT id * {FILES} + {f}, CAST(id AS STRING) FROM range(0, 100, 1, 1)"
               for f in range(FILES)]
    run_sql(warehouse, [f"CREATE TABLE paimon.{db}.by_paimon (k BIGINT, s STRING) {props}"] + inserts)
    rows, by_index, by_stats = skipped(spark, f"SELECT k, s FROM {CAT}.{db}.by_paimon WHERE k IN (41, 46)")
    assert sorted_tuples(rows) == [(41, "10"), (46, "11")] and by_index == FILES - 2 and by_stats == 0

    spark.sql(f"CREATE TABLE {CAT}.{db}.by_lamina (k BIGINT, s STRING) {props}")
    interleaved(spark, f"{CAT}.{db}.by_lamina")
    results = run_sql(warehouse, [f"SELECT k, s FROM paimon.{db}.by_lamina WHERE k = 41",
                                  f"SELECT count(*) FROM paimon.{db}.by_lamina WHERE k IN (1, 2, 3, 400001)"])
    assert results == [[[41, "v41"]], [[3]]]


# file f of the bitmap tests: g NULL in every row of file 0, 'a' in every row of file 1, 'a' and 'b' in
# file 2, 'b' and one NULL in file 3
G = ["NULL", "'a'", "IF(id % 2 = 0, 'a', 'b')", "IF(id = 0, NULL, 'b')"]


def g_of(k):
    f, i = k % FILES, k // FILES
    return [None, "a", "a" if i % 2 == 0 else "b", None if i == 0 else "b"][f]


def keys_of(rows):
    return sorted(tuple(r) for r in rows)


def test_bitmap_indexes_skip_append_files_for_equal_in_null_checks_and_not_equal(spark, db):
    t = f"{CAT}.{db}.t"
    # no statistics: every skip below is the index's
    spark.sql(f"CREATE TABLE {t} (k BIGINT, s STRING, g STRING) TBLPROPERTIES ("
              "'file-index.bitmap.columns' = 'k,s,g', 'metadata.stats-mode' = 'none')")
    for f in range(FILES):
        spark.sql(f"INSERT INTO {t} SELECT id * {FILES} + {f}, 'v' || CAST(id * {FILES} + {f} AS STRING), {G[f]} "
                  "FROM range(0, 100, 1, 1)")
    keys = range(FILES * 100)

    def ks(cond):
        return [(k,) for k in keys if cond(g_of(k))]

    assert skipped(spark, f"SELECT k, s, g FROM {t} WHERE k = 41") == ([(41, "v41", "a")], FILES - 1, 0)
    assert skipped(spark, f"SELECT k FROM {t} WHERE s = 'v42'") == ([(42,)], FILES - 1, 0)
    rows, by_index, _ = skipped(spark, f"SELECT k FROM {t} WHERE k IN (41, 45, 400001)")
    assert sorted_tuples(rows) == [(41,), (45,)] and by_index == FILES - 1
    assert skipped(spark, f"SELECT k FROM {t} WHERE s = 'v41x'") == ([], FILES, 0)
    rows, by_index, _ = skipped(spark, f"SELECT k FROM {t} WHERE g IS NULL")
    assert (keys_of(rows), by_index) == (ks(lambda g: g is None), 2)
    rows, by_index, _ = skipped(spark, f"SELECT k FROM {t} WHERE g IS NOT NULL")
    assert (keys_of(rows), by_index) == (ks(lambda g: g is not None), 1)
    rows, by_index, _ = skipped(spark, f"SELECT k FROM {t} WHERE g = 'a'")
    assert (keys_of(rows), by_index) == (ks(lambda g: g == "a"), 2)
    # <> skips a file whose every row holds the value (file 1) and, by the IS NOT NULL Spark adds, file 0
    rows, by_index, _ = skipped(spark, f"SELECT k FROM {t} WHERE g <> 'a'")
    assert (keys_of(rows), by_index) == (ks(lambda g: g is not None and g != "a"), 2)
    rows, by_index, _ = skipped(spark, f"SELECT k FROM {t} WHERE g NOT IN ('a', 'b')")
    assert (rows, by_index) == ([], FILES)


def test_a_bitmap_index_on_a_column_it_cannot_index_is_refused(spark, db):
    with pytest.raises(Exception, match="names column 'd' of type DECIMAL\\(10, 2\\), which bitmap indexes do not index"):
        spark.sql(f"CREATE TABLE {CAT}.{db}.bad (k BIGINT, d DECIMAL(10, 2)) "
                  "TBLPROPERTIES ('file-index.bitmap.columns' = 'd')")
    with pytest.raises(Exception, match="option 'file-index.bitmap.k.version' = '3' is not valid \\(expected 1 or 2\\)"):
        spark.sql(f"CREATE TABLE {CAT}.{db}.bad (k BIGINT) "
                  "TBLPROPERTIES ('file-index.bitmap.columns' = 'k', 'file-index.bitmap.k.version' = '3')")


def test_paimon_and_lamina_read_each_others_bitmap_indexes(spark, warehouse, db):
    require_paimon()
    props = "TBLPROPERTIES ('file-index.bitmap.columns' = 'k,g', 'metadata.stats-mode' = 'none')"
    inserts = [f"INSERT INTO paimon.{db}.by_paimon SELECT id * {FILES} + {f}, CAST(id AS STRING), {G[f]} "
               "FROM range(0, 100, 1, 1)" for f in range(FILES)]
    run_sql(warehouse, [f"CREATE TABLE paimon.{db}.by_paimon (k BIGINT, s STRING, g STRING) {props}"] + inserts)
    rows, by_index, by_stats = skipped(spark, f"SELECT k, s FROM {CAT}.{db}.by_paimon WHERE k IN (41, 46)")
    assert sorted_tuples(rows) == [(41, "10"), (46, "11")] and by_index == FILES - 2 and by_stats == 0
    rows, by_index, _ = skipped(spark, f"SELECT k FROM {CAT}.{db}.by_paimon WHERE g IS NULL")
    assert keys_of(rows) == [(k,) for k in range(FILES * 100) if g_of(k) is None] and by_index == 2

    spark.sql(f"CREATE TABLE {CAT}.{db}.by_lamina (k BIGINT, s STRING, g STRING) {props}")
    for f in range(FILES):
        spark.sql(f"INSERT INTO {CAT}.{db}.by_lamina SELECT id * {FILES} + {f}, 'v' || CAST(id * {FILES} + {f} AS STRING), "
                  f"{G[f]} FROM range(0, 100, 1, 1)")
    # Paimon filters rows within a file by a bitmap's positions: these answers check them too
    results = run_sql(warehouse, [f"SELECT k, s FROM paimon.{db}.by_lamina WHERE k = 41",
                                  f"SELECT count(*) FROM paimon.{db}.by_lamina WHERE k IN (1, 2, 3, 400001)",
                                  f"SELECT count(*) FROM paimon.{db}.by_lamina WHERE g = 'b'",
                                  f"SELECT count(*) FROM paimon.{db}.by_lamina WHERE g IS NULL"])
    assert results == [[[41, "v41"]], [[3]], [[sum(1 for k in range(FILES * 100) if g_of(k) == "b")]],
                       [[sum(1 for k in range(FILES * 100) if g_of(k) is None)]]]
