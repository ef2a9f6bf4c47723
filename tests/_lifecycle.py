"""Helpers for the snapshot-expiration, tag and rollback tests: a table with a history of updates and
compactions, and the data files each snapshot refers to."""

import os

from _support import data_files, sql_rows

CAT = "lamina"


def make_history(spark, db, table="t", commits=6, props=""):
    """A primary-key table whose every commit updates rows and whose last commit is a full compaction,
    so that later snapshots drop files earlier ones used. Returns the table's full name."""
    name = f"{CAT}.{db}.{table}"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', "
              f"'write-only' = 'true'{props})")
    for i in range(1, commits + 1):
        spark.sql(f"INSERT INTO {name} VALUES ({i}, 'new-{i}'), (1, 'v{i}')")
        if i % 3 == 0:
            spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.{table}')")
    return name


def systable(name, kind):
    """`lamina.db.t` and `files` into lamina.db.`t$files`."""
    head, table = name.rsplit(".", 1)
    return f"{head}.`{table}${kind}`"


def rows_at(spark, name, version):
    return sql_rows(spark, f"SELECT * FROM {name} VERSION AS OF {version!r}" if isinstance(version, str)
                    else f"SELECT * FROM {name} VERSION AS OF {version}")


def files_at(spark, name, version):
    """The names of the data files snapshot (or tag) `version` refers to."""
    v = repr(version) if isinstance(version, str) else version
    return {os.path.basename(r[0]) for r in sql_rows(spark, f"SELECT file_path FROM {systable(name, 'files')} VERSION AS OF {v}")}


def files_on_disk(warehouse, db, table="t"):
    return {os.path.basename(f) for f in data_files(warehouse, db, table)}
