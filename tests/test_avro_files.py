"""Avro data files (`'file.format' = 'avro'`), Paimon's byte format: every type round-trips, append and
primary-key tables take writes, DML, compaction and deletion vectors, value statistics are gathered
from the rows, the codec follows `file.compression` or `avro.codec`, a damaged file fails the read
naming it. File formats per level (`file.format.per.level`): each level's files in its format, each
file read in the format its name ends with. Apache Paimon's own connector and Lamina read and write
each other's Avro and per-level tables (expected rows are computed here)."""

import pytest

import lamina
from _support import error_text, sql_rows, table_path
from paimon_connector import require_paimon, run_sql
from test_interop_paimon_matrix import TYPE_COLUMNS, TYPE_RENDER, TYPE_ROWS

CAT = "lamina"
AVRO = "'file.format' = 'avro'"

# types beyond the matrix's: maps with other than string keys (Avro arrays of key-value records),
# nested rows with arrays, arrays of rows
NESTED_COLUMNS = ("id INT NOT NULL, mi MAP<INT, STRING>, md MAP<DATE, ARRAY<BIGINT>>, "
                  "st STRUCT<a: ARRAY<STRING>, m: MAP<STRING, DOUBLE>>, ar ARRAY<STRUCT<x: INT, y: DECIMAL(20, 3)>>")
NESTED_RENDER = "id, to_json(mi), to_json(map_entries(md)), to_json(st), to_json(ar)"
NESTED_ROWS = [
    ("(1, map(1, 'a', 2, NULL), map(DATE'2024-02-29', array(1, NULL)), named_struct('a', array('x', NULL), "
     "'m', map('k', 1.5)), array(named_struct('x', 1, 'y', 12345678901234567.125BD), NULL))",
     [1, '{"1":"a","2":null}', '[{"key":"2024-02-29","value":[1,null]}]', '{"a":["x",null],"m":{"k":1.5}}',
      '[{"x":1,"y":12345678901234567.125},null]']),
    ("(2, map(), NULL, named_struct('a', NULL, 'm', NULL), array())", [2, "{}", None, "{}", "[]"]),
    ("(3, NULL, NULL, NULL, NULL)", [3, None, None, None, None]),
]


def _files(warehouse, db, table):
    return sorted(p for p in table_path(warehouse, db, table).rglob("data-*") if p.is_file())


def _rows(spark, query):
    return [list(r) for r in spark.sql(query).collect()]


def test_every_type_round_trips_and_files_are_avro_with_stats(spark, warehouse, db):
    t = f"{CAT}.{db}.types"
    spark.sql(f"CREATE TABLE {t} ({TYPE_COLUMNS}) TBLPROPERTIES ({AVRO})")
    spark.sql(f"INSERT INTO {t} VALUES " + ", ".join(r for r, _ in TYPE_ROWS))
    assert _rows(spark, f"SELECT {TYPE_RENDER} FROM {t} ORDER BY id") == [e for _, e in TYPE_ROWS]
    n = f"{CAT}.{db}.nested"
    spark.sql(f"CREATE TABLE {n} ({NESTED_COLUMNS}) TBLPROPERTIES ({AVRO})")
    spark.sql(f"INSERT INTO {n} VALUES " + ", ".join(r for r, _ in NESTED_ROWS))
    assert _rows(spark, f"SELECT {NESTED_RENDER} FROM {n} ORDER BY id") == [e for _, e in NESTED_ROWS]
    files = _files(warehouse, db, "types")
    assert files and all(f.suffix == ".avro" and f.read_bytes()[:4] == b"Obj\x01" for f in files)
    # Avro keeps no statistics: they come from the rows, as Paimon's Avro writer gathers them
    stats = sql_rows(spark, f"SELECT file_format, record_count, null_value_counts, min_value_stats, max_value_stats "
                            f"FROM {CAT}.{db}.`types$files`")
    assert [s[0] for s in stats] == ["avro"] * len(stats)
    assert sum(s[1] for s in stats) == 3
    one = [s for s in stats if s[1] == 3]
    if one:
        assert "id=0" in one[0][2] and "bi=1" in one[0][2]
        assert "id=1" in one[0][3] and "id=3" in one[0][4]
    # projection and filters: a few columns, a predicate on another
    assert sql_rows(spark, f"SELECT s, id FROM {t} WHERE bi < 0") == [("", 2)]


def test_primary_key_table_dml_compaction_and_history(spark, warehouse, db):
    t = f"{CAT}.{db}.pk"
    spark.sql(f"CREATE TABLE {t} (id INT NOT NULL, v STRING, n BIGINT, ts TIMESTAMP) "
              f"TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', {AVRO})")
    spark.sql(f"INSERT INTO {t} SELECT id, concat('a', id), id, TIMESTAMP'2024-01-01 00:00:00' FROM range(0, 20) AS s(id)")
    spark.sql(f"INSERT INTO {t} SELECT id, concat('b', id), id * 10, NULL FROM range(0, 20, 3) AS s(id)")
    spark.sql(f"DELETE FROM {t} WHERE id % 5 = 1")
    spark.sql(f"UPDATE {t} SET v = 'u' WHERE id = 2")
    spark.sql(f"MERGE INTO {t} USING (SELECT 4 AS id UNION ALL SELECT 40) s ON {t}.id = s.id "
              "WHEN MATCHED THEN UPDATE SET n = -1 WHEN NOT MATCHED THEN INSERT (id, v, n, ts) VALUES (s.id, 'm', 0, NULL)")
    model = {i: [f"a{i}", i, True] for i in range(20)}
    for i in range(0, 20, 3):
        model[i] = [f"b{i}", i * 10, False]
    for i in [k for k in model if k % 5 == 1]:
        del model[i]
    model[2][0] = "u"
    model[4][1] = -1
    model[40] = ["m", 0, False]
    expected = [[k, v, n, ts] for k, (v, n, ts) in sorted(model.items())]
    query = f"SELECT id, v, n, ts IS NOT NULL FROM {t} ORDER BY id"
    assert _rows(spark, query) == expected
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.pk')")
    assert _rows(spark, query) == expected
    levels = sql_rows(spark, f"SELECT DISTINCT level, file_format FROM {CAT}.{db}.`pk$files`")
    assert levels == [(5, "avro")]
    assert _rows(spark, f"SELECT count(*) FROM {t} VERSION AS OF 1") == [[20]]


def test_deletion_vectors_mark_row_positions_of_avro_files(spark, db):
    dv = "'deletion-vectors.enabled' = 'true'"
    a = f"{CAT}.{db}.ap"
    spark.sql(f"CREATE TABLE {a} (id INT, v STRING) TBLPROPERTIES ({AVRO}, {dv})")
    spark.sql(f"INSERT INTO {a} SELECT /*+ COALESCE(1) */ id, 'v' FROM range(10) ORDER BY id")
    spark.sql(f"DELETE FROM {a} WHERE id % 3 = 0")
    spark.sql(f"UPDATE {a} SET v = 'u' WHERE id = 4")
    assert sql_rows(spark, f"SELECT id, v FROM {a} ORDER BY id") == [
        (1, "v"), (2, "v"), (4, "u"), (5, "v"), (7, "v"), (8, "v")]
    assert sql_rows(spark, f"SELECT id, __lamina_row_position FROM {a} WHERE id IN (5, 8)") == [(5, 5), (8, 8)]
    p = f"{CAT}.{db}.pk"
    spark.sql(f"CREATE TABLE {p} (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', {AVRO}, {dv})")
    spark.sql(f"INSERT INTO {p} SELECT id, concat('a', id) FROM range(0, 12) AS s(id)")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.pk')")
    spark.sql(f"INSERT INTO {p} SELECT id, concat('b', id) FROM range(0, 12, 4) AS s(id)")
    spark.sql(f"DELETE FROM {p} WHERE id = 5")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.pk')")
    expected = [(i, f"b{i}" if i % 4 == 0 else f"a{i}") for i in range(12) if i != 5]
    assert [tuple(r) for r in _rows(spark, f"SELECT id, v FROM {p} ORDER BY id")] == expected


def _levels(spark, table):
    """{level: set of file extensions} of the table's live data files."""
    out = {}
    for path, level in sql_rows(spark, f"SELECT file_path, level FROM {table.rsplit('.', 1)[0]}.`{table.rsplit('.', 1)[1]}$files`"):
        out.setdefault(level, set()).add(path.rsplit(".", 1)[1])
    return out


def test_formats_per_level_write_each_level_in_its_format_and_read_every_file_by_its_own(spark, db):
    t = f"{CAT}.{db}.lv"
    spark.sql(f"CREATE TABLE {t} (id INT NOT NULL, v STRING, n INT) TBLPROPERTIES ('primary-key' = 'id', "
              "'bucket' = '1', 'file.format.per.level' = '0:avro,5:orc')")
    spark.sql(f"INSERT INTO {t} SELECT id, concat('a', id), id FROM range(0, 10) AS s(id)")
    spark.sql(f"INSERT INTO {t} SELECT id, concat('b', id), NULL FROM range(0, 10, 2) AS s(id)")
    assert _levels(spark, t) == {0: {"avro"}}
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.lv')")
    assert _levels(spark, t) == {5: {"orc"}}
    spark.sql(f"DELETE FROM {t} WHERE id = 3")
    spark.sql(f"UPDATE {t} SET n = -1 WHERE id = 4")
    assert _levels(spark, t) == {0: {"avro"}, 5: {"orc"}}
    expected = [[i, f"b{i}" if i % 2 == 0 else f"a{i}", -1 if i == 4 else (None if i % 2 == 0 else i)]
                for i in range(10) if i != 3]
    assert _rows(spark, f"SELECT * FROM {t} ORDER BY id") == expected
    # the option changes: files already written keep their format and still read
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('file.format.per.level' = '0:parquet')")
    spark.sql(f"INSERT INTO {t} VALUES (20, 'p', 20)")
    assert _levels(spark, t) == {0: {"avro", "parquet"}, 5: {"orc"}}
    assert _rows(spark, f"SELECT * FROM {t} ORDER BY id") == expected + [[20, "p", 20]]
    spark.sql(f"CALL {CAT}.sys.compact(table => '{db}.lv')")
    assert _levels(spark, t) == {5: {"parquet"}}
    assert _rows(spark, f"SELECT * FROM {t} ORDER BY id") == expected + [[20, "p", 20]]


def test_a_bad_per_level_format_is_refused_naming_the_option(spark, db):
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"CREATE TABLE {CAT}.{db}.bad (id INT NOT NULL) TBLPROPERTIES ('primary-key' = 'id', "
                  "'bucket' = '1', 'file.format.per.level' = '0:json')")
    assert "file.format.per.level" in error_text(excinfo)
    assert "expected level:format pairs, e.g. 0:avro,5:parquet" in error_text(excinfo)


@pytest.mark.parametrize("props,codec", [
    ("", b"zstandard"), ("'file.compression' = 'snappy'", b"snappy"), ("'file.compression' = 'none'", b"null"),
    ("'file.compression' = 'lz4', 'avro.codec' = 'deflate'", b"deflate")])
def test_the_codec_follows_file_compression_or_avro_codec(spark, warehouse, db, props, codec):
    t = f"{CAT}.{db}.c"
    spark.sql(f"CREATE TABLE {t} (id INT, v STRING) TBLPROPERTIES ({AVRO}{', ' + props if props else ''})")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'x'), (2, 'y')")
    assert sql_rows(spark, f"SELECT * FROM {t} ORDER BY id") == [(1, "x"), (2, "y")]
    header = _files(warehouse, db, "c")[0].read_bytes()[:600]
    assert b"avro.codec" in header and codec in header


def test_a_codec_avro_lacks_is_refused(spark, db):
    t = f"{CAT}.{db}.c"
    spark.sql(f"CREATE TABLE {t} (id INT) TBLPROPERTIES ({AVRO}, 'file.compression' = 'gzip')")
    with pytest.raises(Exception) as excinfo:
        spark.sql(f"INSERT INTO {t} VALUES (1)")
    assert "file.compression 'gzip' has no Avro codec: use zstd, snappy or none, or set avro.codec" in error_text(excinfo)


@pytest.mark.parametrize("damage", ["truncated", "magic", "block", "column name"])
def test_a_damaged_avro_file_fails_the_read_naming_it(spark, warehouse, db, damage):
    t = f"{CAT}.{db}.d"
    spark.sql(f"CREATE TABLE {t} (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', {AVRO})")
    spark.sql(f"INSERT INTO {t} SELECT id, repeat('x', id % 7) FROM range(0, 200) AS s(id)")
    (path,) = _files(warehouse, db, "d")
    data = bytearray(path.read_bytes())
    if damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "magic":
        data[0] ^= 0xFF
    elif damage == "column name":  # the header's schema names another column: not read as nulls
        at = bytes(data).index(b'{"name":"v"')
        data[at + len('{"name":"')] = ord("w")
    else:
        data[len(data) - 40] ^= 0xFF  # inside the last block's compressed bytes
    path.write_bytes(bytes(data))
    with pytest.raises(lamina.CorruptFileException) as excinfo:
        spark.sql(f"SELECT * FROM {t}").collect()
    assert path.name in str(excinfo.value)


def test_paimon_and_lamina_read_and_write_each_others_avro_and_per_level_tables(spark, warehouse, db):
    require_paimon()
    ns = db
    # Lamina writes an append table of nested types and a primary-key table
    spark.sql(f"CREATE TABLE {CAT}.{ns}.l_nested ({NESTED_COLUMNS}) TBLPROPERTIES ({AVRO})")
    spark.sql(f"INSERT INTO {CAT}.{ns}.l_nested VALUES " + ", ".join(r for r, _ in NESTED_ROWS))
    spark.sql(f"CREATE TABLE {CAT}.{ns}.l_pk (id INT NOT NULL, v STRING) "
              f"TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', {AVRO}, 'deletion-vectors.enabled' = 'true')")
    spark.sql(f"INSERT INTO {CAT}.{ns}.l_pk SELECT id, concat('a', id) FROM range(0, 6) AS s(id)")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{ns}.l_pk')")
    spark.sql(f"INSERT INTO {CAT}.{ns}.l_pk VALUES (1, 'b1'), (7, 'b7')")
    spark.sql(f"DELETE FROM {CAT}.{ns}.l_pk WHERE id = 2")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{ns}.l_pk')")
    pk_expected = [[0, "a0"], [1, "b1"], [3, "a3"], [4, "a4"], [5, "a5"], [7, "b7"]]
    # and a table whose level 0 is Avro and whose compacted files are Parquet
    spark.sql(f"CREATE TABLE {CAT}.{ns}.l_lv (id INT NOT NULL, v STRING) "
              "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', 'file.format.per.level' = '0:avro')")
    spark.sql(f"INSERT INTO {CAT}.{ns}.l_lv VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{ns}.l_lv')")
    spark.sql(f"INSERT INTO {CAT}.{ns}.l_lv VALUES (2, 'bb'), (3, 'c')")
    out = run_sql(warehouse, [
        f"SELECT {NESTED_RENDER} FROM paimon.{ns}.l_nested ORDER BY id",
        f"SELECT * FROM paimon.{ns}.l_pk ORDER BY id",
        f"INSERT INTO paimon.{ns}.l_pk VALUES (3, 'p3')",
        # Paimon writes its own
        f"CREATE TABLE paimon.{ns}.p_nested ({NESTED_COLUMNS}) TBLPROPERTIES ({AVRO})",
        f"INSERT INTO paimon.{ns}.p_nested VALUES " + ", ".join(r for r, _ in NESTED_ROWS),
        f"CREATE TABLE paimon.{ns}.p_pk (id INT NOT NULL, v STRING, ts TIMESTAMP_NTZ) "
        f"TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', {AVRO}, 'deletion-vectors.enabled' = 'true')",
        f"INSERT INTO paimon.{ns}.p_pk VALUES (1, 'a', TIMESTAMP_NTZ'2024-01-01 00:00:00.123456'), (2, 'b', NULL)",
        f"CALL paimon.sys.compact(table => '{ns}.p_pk')",
        f"INSERT INTO paimon.{ns}.p_pk VALUES (2, 'bb', TIMESTAMP_NTZ'1969-12-31 23:59:59.5')",
        f"DELETE FROM paimon.{ns}.p_pk WHERE id = 1",
        f"SELECT * FROM paimon.{ns}.l_lv ORDER BY id",
        f"INSERT INTO paimon.{ns}.l_lv VALUES (4, 'p4')",
        f"CALL paimon.sys.compact(table => '{ns}.l_lv')",
        # Paimon's per-level table: its compaction upgrades a level-0 Avro file to the last level unchanged
        f"CREATE TABLE paimon.{ns}.p_lv (id INT NOT NULL, v STRING) TBLPROPERTIES ('primary-key' = 'id', "
        "'bucket' = '1', 'file.format.per.level' = '0:avro,5:orc')",
        f"INSERT INTO paimon.{ns}.p_lv VALUES (1, 'a'), (2, 'b')",
        f"CALL paimon.sys.compact(table => '{ns}.p_lv')",
        f"INSERT INTO paimon.{ns}.p_lv VALUES (2, 'bb'), (3, 'c')",
    ])
    assert out[0] == [e for _, e in NESTED_ROWS]
    assert out[1] == pk_expected
    assert _rows(spark, f"SELECT {NESTED_RENDER} FROM {CAT}.{ns}.p_nested ORDER BY id") == [e for _, e in NESTED_ROWS]
    assert _rows(spark, f"SELECT id, v, CAST(ts AS STRING) FROM {CAT}.{ns}.p_pk ORDER BY id") == [
        [2, "bb", "1969-12-31 23:59:59.5"]]
    assert _rows(spark, f"SELECT * FROM {CAT}.{ns}.l_pk ORDER BY id") == [
        [0, "a0"], [1, "b1"], [3, "p3"], [4, "a4"], [5, "a5"], [7, "b7"]]
    assert out[10] == [[1, "a"], [2, "bb"], [3, "c"]]
    assert _rows(spark, f"SELECT * FROM {CAT}.{ns}.l_lv ORDER BY id") == [[1, "a"], [2, "bb"], [3, "c"], [4, "p4"]]
    assert _levels(spark, f"{CAT}.{ns}.p_lv") == {0: {"avro"}, 5: {"avro"}}
    assert _rows(spark, f"SELECT * FROM {CAT}.{ns}.p_lv ORDER BY id") == [[1, "a"], [2, "bb"], [3, "c"]]
    spark.sql(f"INSERT INTO {CAT}.{ns}.p_lv VALUES (1, 'l1')")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{ns}.p_lv')")
    assert _levels(spark, f"{CAT}.{ns}.p_lv") == {5: {"orc"}}
    # Lamina writes into Paimon's table and compacts it; Paimon reads the result
    spark.sql(f"INSERT INTO {CAT}.{ns}.p_pk VALUES (3, 'l3', NULL), (2, 'l2', TIMESTAMP_NTZ'2000-01-01 00:00:00')")
    spark.sql(f"CALL {CAT}.sys.compact(table => '{ns}.p_pk')")
    back = run_sql(warehouse, [f"SELECT id, v, CAST(ts AS STRING) FROM paimon.{ns}.p_pk ORDER BY id",
                               f"SELECT * FROM paimon.{ns}.p_lv ORDER BY id"])
    assert back[0] == [[2, "l2", "2000-01-01 00:00:00"], [3, "l3", None]]
    assert back[1] == [[1, "l1"], [2, "bb"], [3, "c"]]
