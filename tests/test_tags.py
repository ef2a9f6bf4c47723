"""Tags: CALL sys.create_tag / create_tag_from_timestamp / replace_tag / rename_tag / delete_tag,
VERSION AS OF 'tag', the $tags table, and tags keeping their files through expiration."""

import pytest

from _lifecycle import CAT, systable, files_at, files_on_disk, make_history, rows_at
from _support import error_text, read_json, read_snapshot, snapshot_ids, sql_rows, table_path
from paimon_connector import require_paimon, run_sql


def test_tags_read_by_version_as_of_and_listed_in_tags_table(spark, warehouse, db):
    name = make_history(spark, db, commits=4)
    latest = max(snapshot_ids(warehouse, db, "t"))
    assert sql_rows(spark, f"CALL {CAT}.sys.create_tag(table => '{db}.t', tag => 'first', snapshot => 1)") == [(True,)]
    assert sql_rows(spark, f"CALL {CAT}.sys.create_tag('{db}.t', 'newest')") == [(True,)]
    spark.sql(f"CALL {CAT}.sys.create_tag(table => '{db}.t', tag => 'two', snapshot_id => 2, time_retained => '7 d')")

    assert rows_at(spark, name, "first") == rows_at(spark, name, 1)
    assert rows_at(spark, name, "two") == rows_at(spark, name, 2)
    assert rows_at(spark, name, "newest") == sql_rows(spark, f"SELECT * FROM {name}")
    snapshots = {r[0]: r[1:] for r in sql_rows(
        spark, f"SELECT snapshot_id, schema_id, commit_time, total_record_count FROM {systable(name, 'snapshots')}")}
    tags = sql_rows(spark, f"SELECT tag_name, snapshot_id, schema_id, commit_time, record_count, time_retained "
                           f"FROM {systable(name, 'tags')}")
    assert tags == [("first", 1, *snapshots[1], None), ("newest", latest, *snapshots[latest], None),
                    ("two", 2, *snapshots[2], "PT168H")]
    assert sql_rows(spark, f"SELECT count(*) FROM {systable(name, 'tags')} WHERE create_time IS NOT NULL") == [(3,)]

    # Paimon's layout: tag/tag-<name>, the snapshot's JSON plus tagCreateTime and tagTimeRetained
    tag = read_json(table_path(warehouse, db, "t") / "tag" / "tag-two")
    snapshot = read_snapshot(warehouse, db, "t", 2)
    assert {k: v for k, v in tag.items() if k not in ("tagCreateTime", "tagTimeRetained")} == snapshot
    assert tag["tagTimeRetained"] == 604800.0
    assert len(tag["tagCreateTime"]) == 7 and all(isinstance(x, int) for x in tag["tagCreateTime"])


def test_tags_keep_their_files_through_expiration_and_delete_tag_frees_them(spark, warehouse, db, paimon_catalog):
    name = make_history(spark, db)
    spark.sql(f"CALL {CAT}.sys.create_tag(table => '{db}.t', tag => 'keep', snapshot => 2)")
    kept_rows, kept_files = rows_at(spark, name, "keep"), files_at(spark, name, "keep")
    latest = max(snapshot_ids(warehouse, db, "t"))
    spark.sql(f"CALL {CAT}.sys.expire_snapshots(table => '{db}.t', retain_max => 1, retain_min => 1)")
    assert snapshot_ids(warehouse, db, "t") == [latest]

    assert rows_at(spark, name, "keep") == kept_rows
    assert rows_at(spark, name, 2) == kept_rows  # the tag's snapshot id reads from the tag
    assert kept_files <= files_on_disk(warehouse, db)
    # pypaimon reads the tag's snapshot too
    table = paimon_catalog.get_table(f"{db}.t").copy({"scan.tag-name": "keep"})
    rb = table.new_read_builder()
    got = sorted((r["id"], r["v"]) for r in rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist())
    assert got == kept_rows

    assert sql_rows(spark, f"CALL {CAT}.sys.delete_tag(table => '{db}.t', tag => 'keep')") == [(True,)]
    assert files_on_disk(warehouse, db) == files_at(spark, name, latest)
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"SELECT * FROM {name} VERSION AS OF 'keep'").collect()
    assert f"Version 'keep' of table {db}.t is neither a snapshot id nor a tag" in error_text(excinfo)


def test_rename_replace_and_create_from_timestamp(spark, warehouse, db):
    name = make_history(spark, db, commits=4)
    spark.sql(f"CALL {CAT}.sys.create_tag('{db}.t', 'a', 1)")
    assert sql_rows(spark, f"CALL {CAT}.sys.rename_tag(table => '{db}.t', tag => 'a', target_tag => 'b')") == [(True,)]
    assert sql_rows(spark, f"SELECT tag_name, snapshot_id FROM {systable(name, 'tags')}") == [("b", 1)]
    assert rows_at(spark, name, "b") == rows_at(spark, name, 1)
    spark.sql(f"CALL {CAT}.sys.replace_tag(table => '{db}.t', tag => 'b', snapshot => 3, time_retained => '1 d')")
    assert sql_rows(spark, f"SELECT tag_name, snapshot_id, time_retained FROM {systable(name, 'tags')}") == [("b", 3, "PT24H")]
    t2 = read_snapshot(warehouse, db, "t", 2)["timeMillis"]
    assert sql_rows(spark, f"CALL {CAT}.sys.create_tag_from_timestamp(table => '{db}.t', tag => 'c', timestamp => {t2})") \
        == [("c", 2, t2, None)]
    assert sql_rows(spark, f"SELECT tag_name, snapshot_id FROM {systable(name, 'tags')}") == [("b", 3), ("c", 2)]


@pytest.mark.parametrize("call, message", [
    ("create_tag(table => '{t}', tag => 'x', snapshot => 99)", "Snapshot 99 of table {t} does not exist"),
    ("create_tag(table => '{t}', tag => '42')", "Invalid tag name '42': it must not be all digits"),
    ("create_tag(table => '{t}', tag => 'a/b')", "Invalid tag name 'a/b': it must not contain '/'"),
    ("create_tag(table => '{t}', tag => 'x', snapshot => 1, snapshot_id => 1)",
     "Give only one of the arguments 'snapshot' and 'snapshot_id'"),
    ("create_tag(table => '{t}', tag => 'x', time_retained => 'forever')",
     "Invalid time_retained 'forever': expected a duration such as 1 h"),
    ("create_tag(table => '{t}', tag => 'exists')", "Tag 'exists' of table {t} already exists"),
    ("delete_tag(table => '{t}', tag => 'nope')", "Tag 'nope' of table {t} does not exist; its tags are exists"),
    ("rename_tag(table => '{t}', tag => 'exists', target_tag => 'exists')", "Tag 'exists' of table {t} already exists"),
    ("replace_tag(table => '{t}', tag => 'nope')", "Tag 'nope' of table {t} does not exist"),
    ("create_tag_from_timestamp(table => '{t}', tag => 'x', timestamp => 99999999999999)",
     "Table {t} has no snapshot committed at or after"),
])
def test_bad_arguments_are_refused_naming_them(spark, warehouse, db, call, message):
    make_history(spark, db, commits=1)
    t = f"{db}.t"
    spark.sql(f"CALL {CAT}.sys.create_tag(table => '{t}', tag => 'exists')")
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CALL {CAT}.sys." + call.format(t=t)).collect()
    assert message.format(t=t) in error_text(excinfo)
    assert sql_rows(spark, f"SELECT tag_name FROM {systable(CAT + '.' + t, 'tags')}") == [("exists",)]


def test_paimon_connector_reads_lamina_tags_and_lamina_reads_paimons(spark, warehouse, db):
    require_paimon()
    name = make_history(spark, db, commits=4)
    spark.sql(f"CALL {CAT}.sys.create_tag(table => '{db}.t', tag => 'two', snapshot => 2)")
    spark.sql(f"CALL {CAT}.sys.expire_snapshots(table => '{db}.t', retain_max => 1, retain_min => 1)")
    latest = max(snapshot_ids(warehouse, db, "t"))
    results = run_sql(warehouse, [
        f"SELECT id, v FROM paimon.{db}.t VERSION AS OF 'two' ORDER BY id",
        f"SELECT tag_name, snapshot_id FROM paimon.{db}.`t$tags`",
        f"CALL paimon.sys.create_tag(table => '{db}.t', tag => 'by_paimon', snapshot => {latest}, "
        "time_retained => '1 d')",
    ])
    assert [tuple(r) for r in results[0]] == rows_at(spark, name, "two")
    assert results[1] == [["two", 2]]
    assert sql_rows(spark, f"SELECT tag_name, snapshot_id, time_retained FROM {systable(name, 'tags')}") == [
        ("by_paimon", latest, "PT24H"), ("two", 2, None)]
    assert rows_at(spark, name, "by_paimon") == sql_rows(spark, f"SELECT * FROM {name}")


def test_automatic_tags_by_process_time(spark, warehouse, db):
    import datetime as dt

    name = f"{CAT}.{db}.auto"
    spark.sql(f"CREATE TABLE {name} (id INT) TBLPROPERTIES ('tag.automatic-creation' = 'process-time', "
              "'tag.creation-period' = 'hourly', 'tag.default-time-retained' = '2 d')")
    spark.sql(f"INSERT INTO {name} VALUES (1)")
    spark.sql(f"INSERT INTO {name} VALUES (2)")
    # the session's JVM runs in UTC
    first = dt.datetime.fromtimestamp(read_snapshot(warehouse, db, "auto", 1)["timeMillis"] / 1000, dt.timezone.utc)
    hour = (first.replace(minute=0, second=0, microsecond=0) - dt.timedelta(hours=1)).strftime("%Y-%m-%d %H")
    # the first commit tags the hour before it; the next one tags nothing within the same hour
    tags = sql_rows(spark, f"SELECT tag_name, snapshot_id, time_retained FROM {systable(name, 'tags')}")
    assert tags[0] == (hour, 1, "PT48H")
    assert all(t[1] == 2 for t in tags[1:]) and len(tags) <= 2  # 2 only when the hour turned in between
    assert rows_at(spark, name, hour) == [(1,)]
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('tag.automatic-creation' = 'watermark')")
    assert f"Invalid value 'watermark' for option 'tag.automatic-creation' of table {db}.auto: expected one of none, process-time" \
        in error_text(excinfo)


def test_expire_tags_by_retention_and_by_age(spark, db):
    import time
    from lamina import LaminaTable

    spark.sql(f"CREATE TABLE lamina.{db}.e (id INT)")
    spark.sql(f"INSERT INTO lamina.{db}.e VALUES (1)")
    spark.sql(f"CALL lamina.sys.create_tag(table => '{db}.e', tag => 'short', time_retained => '1 s')")
    spark.sql(f"CALL lamina.sys.create_tag(table => '{db}.e', tag => 'kept')")
    assert [r[0] for r in spark.sql(f"CALL lamina.sys.expire_tags(table => '{db}.e')").collect()] in (
        ["No expired tags."], ["short"])
    time.sleep(1.2)
    t = LaminaTable.for_name(spark, f"{db}.e")
    assert t.expire_tags() in ([], ["short"])
    assert [r.tag_name for r in t.tags().collect()] == ["kept"]
    assert [r[0] for r in spark.sql(
        f"CALL lamina.sys.expire_tags(table => '{db}.e', older_than => '2999-01-01 00:00:00')").collect()] == ["kept"]
    assert t.tags().count() == 0
    assert sorted(r[0] for r in spark.sql(f"SELECT id FROM lamina.{db}.e").collect()) == [1]
