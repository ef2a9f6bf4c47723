"""The `lamina` command end to end: each subcommand in its own process, as a user runs it, on a table
of the test session's warehouse whose name holds a dash and whose partition value holds a comma.
(Argument checks: test_python_api.py.)"""

import os
import subprocess
import sys

from _support import sql_rows, table_path

CAT = "lamina"


def lamina_cli(warehouse, *args):
    return subprocess.run([sys.executable, "-m", "lamina", *args, "--warehouse", warehouse, "--master", "local[1]",
                           "--conf", "spark.ui.enabled=false"], capture_output=True, text=True, timeout=600)


def warehouse_table(warehouse, db):
    return table_path(warehouse, db, "my-table")


def ok(result):
    assert result.returncode == 0, result.stderr[-4000:]
    return result.stdout


def test_every_subcommand_on_one_table(spark, warehouse, db):
    name = f"{CAT}.{db}.`my-table`"
    table = f"{db}.my-table"
    spark.sql(f"CREATE TABLE {name} (id INT NOT NULL, region STRING NOT NULL, v STRING) PARTITIONED BY (region) "
              "TBLPROPERTIES ('primary-key' = 'id,region', 'bucket' = '1')")
    for i in range(3):
        spark.sql(f"INSERT INTO {name} VALUES ({i}, 'eu,west', 'v{i}'), ({i}, 'us', 'u{i}')")

    out = ok(lamina_cli(warehouse, "compact", "--table", table, "--partition", "region='eu,west'", "--full"))
    assert f"compacted {table}: snapshot 4" in out
    files = sql_rows(spark, f"SELECT partition, level FROM {CAT}.{db}.`my-table$files`")
    assert sorted(level for partition, level in files if "eu,west" in partition) == [5]  # one file, top level
    assert [level for partition, level in files if "us" in partition] == [0, 0, 0]  # left alone

    ok(lamina_cli(warehouse, "create-tag", "--table", f"{CAT}.{table}", "--tag", "before-delete", "--snapshot", "3"))
    spark.sql(f"DELETE FROM {name} WHERE id = 0")

    out = ok(lamina_cli(warehouse, "show-snapshots", "--table", table, "--limit", "2"))
    lines = out.splitlines()
    assert lines[0].split() == ["snapshot_id", "commit_kind", "commit_time", "total_record_count", "delta_record_count"]
    assert [line.split()[:2] for line in lines[2:]] == [["5", "APPEND"], ["4", "COMPACT"]]

    ok(lamina_cli(warehouse, "rollback", "--table", table, "--tag", "before-delete"))
    assert sql_rows(spark, f"SELECT count(*) FROM {name}") == [(6,)]
    assert [r[0] for r in sql_rows(spark, f"SELECT snapshot_id FROM {CAT}.{db}.`my-table$snapshots`")] == [1, 2, 3]

    out = ok(lamina_cli(warehouse, "expire-snapshots", "--table", table, "--retain-max", "1", "--retain-min", "1"))
    assert out.splitlines()[2].split() == ["2"]  # deleted_snapshots_count
    ok(lamina_cli(warehouse, "delete-tag", "--table", table, "--tag", "before-delete"))
    assert sql_rows(spark, f"SELECT count(*) FROM {CAT}.{db}.`my-table$tags`") == [(0,)]

    (tmp := warehouse_table(warehouse, db) / "region=us" / "bucket-0" / "stray.parquet").write_bytes(b"x")
    os.utime(tmp, (0, 0))  # older than the default day
    out = ok(lamina_cli(warehouse, "remove-orphan-files", "--table", table, "--dry-run"))
    assert out.splitlines()[0].split() == ["deletedFileCount", "deletedFileTotalLenInBytes"]
    assert out.splitlines()[2].split() == ["1", "1"]
    assert tmp.exists()  # a dry run


def test_a_lamina_error_is_one_line_and_a_nonzero_exit(warehouse, db):
    result = lamina_cli(warehouse, "create-tag", "--table", f"{db}.nope", "--tag", "x")
    assert result.returncode == 1
    assert "lamina create-tag: " in result.stderr and f"{db}.nope" in result.stderr
    assert "\tat " not in result.stderr  # no Java stack trace without --verbose
