"""`CALL sys.rewrite_file_index`: a table that gains `file-index.*` options after its files were written
gets the indexes in its existing files (one COMPACT commit, the rows untouched), and reads skip by them
at once; earlier snapshots read as before, Paimon's connector reads the table right afterwards, and
Lamina indexes tables Paimon wrote. Each file holds keys that interleave with the others' (`k % files
== file`), so only an index can tell the files apart."""

import glob

import pytest

from _support import sql_rows, table_path
from lamina import LaminaTable
from paimon_connector import require_paimon, run_sql
from test_file_index import BITMAP, BLOOM, FILES, interleaved, skipped

CAT = "lamina"


def call(spark, args):
    return tuple(spark.sql(f"CALL {CAT}.sys.rewrite_file_index({args})").collect()[0])


def test_files_written_before_the_option_gain_indexes_and_skip_by_them(spark, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k BIGINT, s STRING)")
    interleaved(spark, t)
    assert skipped(spark, f"SELECT k, s FROM {t} WHERE k = 41") == ([(41, "v41")], 0, 0)
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ({BLOOM})")
    # the option alone indexes no existing file
    assert skipped(spark, f"SELECT k, s FROM {t} WHERE k = 41") == ([(41, "v41")], 0, 0)

    assert call(spark, f"table => '{db}.t'") == (1, FILES)
    snapshot, kind, operation = sql_rows(spark, f"SELECT snapshot_id, commit_kind, operation FROM {CAT}.{db}.`t$snapshots` "
                                                "ORDER BY snapshot_id DESC LIMIT 1")[0]
    assert (snapshot, kind, operation) == (FILES + 1, "COMPACT", "REWRITE FILE INDEX")
    assert skipped(spark, f"SELECT k, s FROM {t} WHERE k = 41") == ([(41, "v41")], FILES - 1, 0)
    assert skipped(spark, f"SELECT k FROM {t} WHERE s = 'v41x'") == ([], FILES, 0)
    # the snapshot before it reads as it did, without indexes
    assert skipped(spark, f"SELECT k, s FROM {t} VERSION AS OF {FILES} WHERE k = 41") == ([(41, "v41")], 0, 0)
    assert sql_rows(spark, f"SELECT count(*), sum(k) FROM {t}") == [(FILES * 100, sum(range(FILES * 100)))]
    # every file has its indexes already: nothing to commit
    assert call(spark, f"table => '{db}.t'") == (0, 0)
    assert sql_rows(spark, f"SELECT max(snapshot_id) FROM {CAT}.{db}.`t$snapshots`") == [(FILES + 1,)]


def test_where_selects_partitions_and_the_python_api_returns_commit_metrics(spark, db):
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k BIGINT, s STRING, p INT) PARTITIONED BY (p)")
    for p in (1, 2):
        for f in range(2):
            spark.sql(f"INSERT INTO {t} SELECT id * 2 + {f}, 'v', {p} FROM range(0, 50, 1, 1)")
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ({BITMAP})")
    assert call(spark, f"table => '{db}.t', where => 'p = 2'") == (1, 2)
    assert skipped(spark, f"SELECT k FROM {t} WHERE k = 41 AND p = 2") == ([(41,)], 1, 0)
    assert skipped(spark, f"SELECT k FROM {t} WHERE k = 41 AND p = 1") == ([(41,)], 0, 0)
    metrics = LaminaTable.for_name(spark, f"{db}.t").rewrite_file_index(where="p = 1").collect()[0]
    assert (metrics.num_snapshots, metrics.operation, metrics.num_added_files, metrics.num_removed_files,
            metrics.num_added_records, metrics.num_removed_records) == (1, "REWRITE FILE INDEX", 2, 2, 100, 100)
    assert skipped(spark, f"SELECT k FROM {t} WHERE k = 41 AND p = 1") == ([(41,)], 1, 0)
    with pytest.raises(Exception, match="Argument 'where' must be a condition on the partition columns"):
        call(spark, f"table => '{db}.t', where => 'k = 1'")
    with pytest.raises(ValueError, match="where must be a non-empty SQL expression string"):
        LaminaTable.for_name(spark, f"{db}.t").rewrite_file_index(where=" ")


def test_primary_key_tables_with_deletion_vectors_then_paimon_reads_and_expiration_keeps_data(spark, warehouse, db):
    require_paimon()
    t = f"{CAT}.{db}.pk"
    spark.sql(f"CREATE TABLE {t} (k BIGINT NOT NULL, s STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1', "
              "'deletion-vectors.enabled' = 'true', 'file-index.in-manifest-threshold' = '64 b')")
    interleaved(spark, t, files=3)
    spark.sql(f"DELETE FROM {t} WHERE k = 42")
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ({BLOOM})")
    partitions, files = call(spark, f"table => '{db}.pk'")
    bucket = table_path(warehouse, db, "pk") / "bucket-0"
    index_files = glob.glob(str(bucket / "*.index"))
    assert partitions == 1 and files >= 1 and len(index_files) == files
    expected = [(41, "v41")]
    assert skipped(spark, f"SELECT k, s FROM {t} WHERE k = 41")[0] == expected
    rows, by_index, _ = skipped(spark, f"SELECT k FROM {t} WHERE s = 'v41x'")
    assert rows == [] and by_index >= 1
    assert sql_rows(spark, f"SELECT count(*) FROM {t} WHERE k = 42") == [(0,)]
    # Paimon's connector reads the table right afterwards (index files, vectors and all) and so do its filters
    results = run_sql(warehouse, [f"SELECT k, s FROM paimon.{db}.pk WHERE k = 41",
                                  f"SELECT count(*), sum(k) FROM paimon.{db}.pk",
                                  f"SELECT count(*) FROM paimon.{db}.pk WHERE s IN ('v42', 'v43', 'nope')"])
    total = sum(range(300)) - 42
    assert results == [[[41, "v41"]], [[299, total]], [[1]]]
    # other sizing: the files' indexes are written again, into new index files beside the old ones
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('file-index.bloom-filter.k.fpp' = '0.05')")
    assert call(spark, f"table => '{db}.pk'") == (1, files)
    newer = set(glob.glob(str(bucket / "*.index"))) - set(index_files)
    assert len(newer) == files and all(p.endswith("-1.index") for p in newer)
    # once the snapshots before the rewrite expire, the index files only they used go; the data files stay
    spark.sql(f"CALL {CAT}.sys.expire_snapshots(table => '{db}.pk', retain_max => 1, retain_min => 1)")
    assert set(glob.glob(str(bucket / "*.index"))) == newer
    assert sql_rows(spark, f"SELECT count(*), sum(k) FROM {t}") == [(299, total)]
    assert skipped(spark, f"SELECT k FROM {t} WHERE s = 'v41x'")[1] >= 1


def test_lamina_indexes_a_table_paimon_wrote_and_paimon_reads_it(spark, warehouse, db):
    require_paimon()
    inserts = [f"INSERT INTO paimon.{db}.by_paimon SELECT id * {FILES} + {f}, 'v' || CAST(id * {FILES} + {f} AS STRING) "
               "FROM range(0, 100, 1, 1)" for f in range(FILES)]
    run_sql(warehouse, [f"CREATE TABLE paimon.{db}.by_paimon (k BIGINT, s STRING)"] + inserts)
    t = f"{CAT}.{db}.by_paimon"
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ({BITMAP}, 'file-index.in-manifest-threshold' = '64 b')")
    assert call(spark, f"table => '{db}.by_paimon'") == (1, FILES)
    assert skipped(spark, f"SELECT k, s FROM {t} WHERE k = 41") == ([(41, "v41")], FILES - 1, 0)
    results = run_sql(warehouse, [f"SELECT k, s FROM paimon.{db}.by_paimon WHERE k = 41",
                                  f"SELECT count(*) FROM paimon.{db}.by_paimon WHERE s = 'v42'",
                                  f"SELECT count(*) FROM paimon.{db}.by_paimon",
                                  f"INSERT INTO paimon.{db}.by_paimon VALUES (1000, 'new')",
                                  f"CALL paimon.sys.compact(table => '{db}.by_paimon')"])
    assert results[:3] == [[[41, "v41"]], [[1]], [[FILES * 100]]]
    assert sql_rows(spark, f"SELECT count(*) FROM {t}") == [(FILES * 100 + 1,)]
    assert skipped(spark, f"SELECT k, s FROM {t} WHERE k = 1000")[0] == [(1000, "new")]


def test_paimon_rewrites_the_indexes_of_a_lamina_table_and_lamina_skips_by_them(spark, warehouse, db):
    require_paimon()
    t = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {t} (k BIGINT, s STRING)")
    interleaved(spark, t)
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ({BLOOM}, 'file-index.in-manifest-threshold' = '64 b')")
    results = run_sql(warehouse, [f"CALL paimon.sys.rewrite_file_index(table => '{db}.t')",
                                  f"SELECT k, s FROM paimon.{db}.t WHERE k = 41"])
    assert results == [[[1, FILES]], [[41, "v41"]]]
    # Paimon's commit replaced each entry by one naming its index file: Lamina's reads skip by them
    assert len(glob.glob(str(table_path(warehouse, db, "t") / "bucket-0" / "*.index"))) == FILES
    assert skipped(spark, f"SELECT k, s FROM {t} WHERE k = 41") == ([(41, "v41")], FILES - 1, 0)
    assert sql_rows(spark, f"SELECT count(*) FROM {t}") == [(FILES * 100,)]
    # and Lamina's compaction replaces those files, indexes and all
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.t')")
    assert sql_rows(spark, f"SELECT count(*), sum(k) FROM {t}") == [(FILES * 100, sum(range(FILES * 100)))]
