"""Data files roll at `target-file-size` as written: by the size the Parquet writer reports (pages
written and buffered, compressed), not by the rows' larger in-memory size, so a bucket's load that
fits in one target-sized file is one file (one sorted run), and larger loads give files close to the
target."""

import pytest

from _support import sql_rows

CAT = "lamina"
MB = 1024 * 1024


@pytest.mark.parametrize("kind", ["append", "primary-key"])
def test_files_roll_near_the_target_size_on_disk(spark, db, kind):
    props = "'primary-key' = 'id', 'bucket' = '1', " if kind == "primary-key" else ""
    spark.sql(f"CREATE TABLE {CAT}.{db}.t (id BIGINT, v STRING) "
              f"TBLPROPERTIES ({props}'target-file-size' = '2 mb')")
    spark.range(0, 400_000).selectExpr("id", "uuid() AS v").coalesce(1).writeTo(f"{CAT}.{db}.t").append()
    # the live files: a compaction after the write leaves the files it replaced on disk
    sizes = sorted((r[0] for r in spark.sql(f"SELECT file_size_in_bytes FROM {CAT}.{db}.`t$files`").collect()),
                   reverse=True)
    assert len(sizes) >= 3, sizes
    # every file but the last one of the write comes close to the target: the writer counts the page
    # it is filling at its size before compression (rows' in-memory size would give files of 0.6 MB)
    assert all(1.6 * MB <= s <= 3 * MB for s in sizes[:-1]), sizes
    assert sql_rows(spark, f"SELECT count(*), count(DISTINCT id) FROM {CAT}.{db}.t") == [(400_000, 400_000)]
