"""A corrupt data file is detected and reported, naming it, never read as wrong data: every byte of a
primary-key table's data file flipped in turn either changes nothing the reader returns or fails the read
with lamina.CorruptFileException naming the file."""

import os

import pytest

import lamina
from _support import sql_rows, table_path

CAT = "lamina"
# `make stress` (LAMINA_STRESS=1) flips every third byte of the pages and every byte of the footer;
# `make test` every 27th byte of the pages and every ninth of the footer
_STRESS = os.environ.get("LAMINA_STRESS") == "1"
PAGE_STEP, FOOTER_STEP = (3, 1) if _STRESS else (27, 9)


def flip_sweep(spark, path, query, expected, offsets):
    """(harmless, detected) counts over `offsets`; asserts that no flip changes the result silently."""
    original = path.read_bytes()
    harmless = detected = 0
    wrong = []
    try:
        for offset in offsets:
            data = bytearray(original)
            data[offset] ^= 0xFF
            path.write_bytes(bytes(data))
            try:
                got = sql_rows(spark, query)
            except lamina.CorruptFileException as e:
                assert path.name in str(e), str(e)[:500]
                detected += 1
                continue
            if got == expected:
                harmless += 1
            else:
                wrong.append(offset)
    finally:
        path.write_bytes(original)
    assert wrong == [], f"flips read as wrong rows at offsets {wrong}"
    return harmless, detected


def test_every_flipped_byte_of_a_data_file_is_detected_or_harmless(spark, warehouse, db):
    # Two sorted runs, so the flipped file is read through the merge. Bytes of the footer (a garbled row
    # count there once made the file read as empty) and of the pages (each checked against the CRC its
    # header carries) are flipped: a Spark job a flip.
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING, n BIGINT) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), concat('v', id), id * 3 FROM range(40)")
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), concat('w', id), id * 5 FROM range(20, 50)")
    query = f"SELECT * FROM {name}"
    expected = sql_rows(spark, query)
    assert len(expected) == 50
    bucket = table_path(warehouse, db, "t") / "bucket-0"
    first = min(bucket.glob("*.parquet"), key=os.path.getmtime)
    size = first.stat().st_size
    footer_start = size - 8 - int.from_bytes(first.read_bytes()[-8:-4], "little")
    offsets = (list(range(0, footer_start, PAGE_STEP))
               + list(range(footer_start - footer_start % FOOTER_STEP, size, FOOTER_STEP)))
    harmless, detected = flip_sweep(spark, first, query, expected, offsets)
    assert detected > len(offsets) // 4 and harmless > 0, (harmless, detected)
    assert sql_rows(spark, query) == expected


def test_a_truncated_data_file_is_reported_by_name(spark, warehouse, db):
    name = f"{CAT}.{db}.t"
    spark.sql(f"CREATE TABLE {name} (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {name} SELECT CAST(id AS INT), 'a' FROM range(100)")
    path = next((table_path(warehouse, db, "t") / "bucket-0").glob("*.parquet"))
    path.write_bytes(path.read_bytes()[:-100])
    for statement in (f"SELECT count(*) FROM {name}", f"CALL {CAT}.sys.compact(table => '{db}.t')"):
        with pytest.raises(lamina.CorruptFileException) as excinfo:
            spark.sql(statement).collect()
        assert path.name in str(excinfo.value) and f"{db}.t" in str(excinfo.value)
