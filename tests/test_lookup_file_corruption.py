"""Damaged local lookup files (the files an executor builds from a primary-key table's data files for
lookup compaction, kept for its next compactions): a write that looks into them again never reads a
wrong row. A file changed on disk since it was built is built again from its data file; one whose
blocks fail their checksums when read is dropped and built again (the unit tests of
`lamina.lookup.LocalFileCache` and `lamina.lookup.CorruptionTest` pin each byte down)."""

import os
from pathlib import Path

import pytest

from _support import sql_rows

CAT = "lamina"


def _lookup_files(spark):
    local = Path(spark.sparkContext.getConf().get("spark.local.dir"))
    return {p for p in local.rglob("lookup-*.lkp")}


def _damage(path, keep_time):
    """Flips a byte at the start, the middle and the end of the file (a data block, the footer)."""
    stat = path.stat()
    data = bytearray(path.read_bytes())
    for i in (0, len(data) // 2, len(data) - 1):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))
    if keep_time:  # only the blocks' checksums can tell
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


@pytest.mark.parametrize("engine,keep_time", [("deduplicate", False), ("partial-update", False),
                                              ("partial-update", True)])
def test_damaged_lookup_files_never_give_a_wrong_row(spark, db, engine, keep_time):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, a INT, b STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', "
              f"'deletion-vectors.enabled' = 'true', 'merge-engine' = '{engine}')")
    cache = spark.sparkContext._jvm.lamina.lookup.LocalFileCache
    spark.sql(f"INSERT INTO {name} SELECT id, id, 'a' FROM range(0, 2000)")
    before = _lookup_files(spark)
    spark.sql(f"INSERT INTO {name} SELECT id, NULL, 'b' FROM range(0, 2000, 2)")  # builds the top level's files
    built = _lookup_files(spark) - before
    assert built
    for f in built:
        _damage(f, keep_time)
    stats = cache.stats()
    spark.sql(f"INSERT INTO {name} SELECT id, NULL, 'c' FROM range(1, 2000, 2)")  # looks into them again
    if not keep_time:
        # each damaged file looked into again was dropped and built again (a compaction that rewrote
        # a top-level file looks into its new file instead)
        dropped = [f for f in built if not f.exists()]
        assert dropped and cache.stats().rebuilt() - stats.rebuilt() == len(dropped)
    expected = [(i, i if engine == "partial-update" else None, "b" if i % 2 == 0 else "c") for i in range(2000)]
    assert sorted(sql_rows(spark, f"SELECT id, a, b FROM {name}")) == expected
