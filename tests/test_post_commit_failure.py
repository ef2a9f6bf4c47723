"""A write that committed but whose follow-up compaction failed is reported as committed.

On a deletion-vector table a write's rows become visible once the lookup compaction after it lands
(readers skip level 0, as Paimon's do). When that compaction fails, the write's snapshot is already
committed: the error is a PostCommitFailureException, which is not a CommitConflictException, so a
retry loop that catches conflicts does not apply the write twice. The rows show once
`CALL sys.compact` succeeds."""

import pytest

import lamina
from _support import error_text, sql_rows, table_path

CAT = "lamina"


def test_failed_compaction_after_a_committed_write_is_not_a_conflict(spark, warehouse, db):
    name = f"{CAT}.{db}.pk"
    spark.sql(f"CREATE TABLE {name} (k INT NOT NULL, v STRING) TBLPROPERTIES "
              "('primary-key' = 'k', 'bucket' = '1', 'deletion-vectors.enabled' = 'true')")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'b')")
    # damage the one data file (at the top level after the first write's compaction) so that the next
    # write's lookup compaction, which must look its keys up there, fails
    (data,) = [p for p in (table_path(warehouse, db, "pk") / "bucket-0").iterdir() if p.name.startswith("data-")]
    good = data.read_bytes()
    data.write_bytes(good[: len(good) // 2])
    with pytest.raises(lamina.PostCommitFailureException) as excinfo:
        spark.sql(f"INSERT INTO {name} VALUES (2, 'B'), (3, 'c')")
    assert not isinstance(excinfo.value, lamina.CommitConflictException)
    text = error_text(excinfo)
    assert f"The write to table {db}.pk is committed (snapshot 3): do not run it again." in text
    assert f"CALL <catalog>.sys.compact(table => '{db}.pk')" in text
    kinds = sql_rows(spark, f"SELECT snapshot_id, commit_kind FROM {CAT}.{db}.`pk$snapshots`")
    assert kinds[-1] == (3, "APPEND")
    # repaired, the compaction the message names makes the committed rows visible
    data.write_bytes(good)
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "a"), (2, "b")]
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.pk')")
    assert sql_rows(spark, f"SELECT * FROM {name}") == [(1, "a"), (2, "B"), (3, "c")]
