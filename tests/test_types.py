"""Every Spark type the contract lists, written and read back exactly, with Paimon's type names on disk."""

import datetime as dt
from decimal import Decimal

import pytest
from pyspark.sql.types import (ArrayType, BinaryType, BooleanType, ByteType, DateType, DecimalType,
                               DoubleType, FloatType, IntegerType, LongType, MapType, ShortType,
                               StringType, StructField, StructType, TimestampNTZType, TimestampType)

from _support import error_text, field_types, read_schema, sql_rows, unchanged

CAT = "lamina"

DDL = """
    id INT NOT NULL, b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT, f FLOAT, d DOUBLE,
    dec DECIMAL(12, 3), s STRING, vc VARCHAR(5), ch CHAR(3), bin BINARY, dt DATE, ts TIMESTAMP,
    ntz TIMESTAMP_NTZ, arr ARRAY<INT>, m MAP<STRING, INT>, st STRUCT<x: INT, y: STRING>
"""

SPARK_SCHEMA = StructType([
    StructField("id", IntegerType(), False), StructField("b", BooleanType()),
    StructField("ti", ByteType()), StructField("si", ShortType()), StructField("i", IntegerType()),
    StructField("bi", LongType()), StructField("f", FloatType()), StructField("d", DoubleType()),
    StructField("dec", DecimalType(12, 3)), StructField("s", StringType()),
    StructField("vc", StringType()), StructField("ch", StringType()), StructField("bin", BinaryType()),
    StructField("dt", DateType()), StructField("ts", TimestampType()),
    StructField("ntz", TimestampNTZType()), StructField("arr", ArrayType(IntegerType())),
    StructField("m", MapType(StringType(), IntegerType())),
    StructField("st", StructType([StructField("x", IntegerType()), StructField("y", StringType())])),
])

FULL = (1, True, -128, 32767, -2147483648, 9223372036854775807, 1.5, -2.25, Decimal("123456789.123"),
        "héllo ✓", "abcde", "abc", b"\x00\x01\xff", dt.date(2024, 2, 29),
        dt.datetime(2024, 1, 2, 3, 4, 5, 123456), dt.datetime(1999, 12, 31, 23, 59, 59, 999999),
        [1, None, 3], {"k": 1, "n": None}, (7, "seven"))
EMPTYISH = (2, False, 0, 0, 0, 0, 0.0, 0.0, Decimal("0.000"), "", "", "abc", b"",
            dt.date(1970, 1, 1), dt.datetime(1970, 1, 1), dt.datetime(1970, 1, 1), [], {}, (None, None))
NULLS = (3,) + (None,) * 18


def create(spark, db, name="all_types", ddl=DDL):
    spark.sql(f"CREATE TABLE {CAT}.{db}.{name} ({ddl})")


def test_varchar_and_struct_columns_take_dataframe_writes(spark, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.vs (vc VARCHAR(5), st STRUCT<x: INT, y: STRING>)")
    spark.createDataFrame([("ab", (1, "a"))], "vc STRING, st STRUCT<x: INT, y: STRING>").writeTo(
        f"{CAT}.{db}.vs").append()
    assert sql_rows(spark, f"SELECT vc, st.x FROM {CAT}.{db}.vs") == [("ab", 1)]


def test_paimon_type_names_on_disk(spark, warehouse, db):
    create(spark, db)
    types = field_types(read_schema(warehouse, db, "all_types", 0))
    # Paimon's Java writer spells local-zone timestamps one way, pypaimon the other; both parse.
    assert types.pop("ts") in ("TIMESTAMP(6) WITH LOCAL TIME ZONE", "TIMESTAMP_LTZ(6)")
    assert {k: v for k, v in types.items() if isinstance(v, str)} == {
        "id": "INT NOT NULL", "b": "BOOLEAN", "ti": "TINYINT", "si": "SMALLINT", "i": "INT",
        "bi": "BIGINT", "f": "FLOAT", "d": "DOUBLE", "dec": "DECIMAL(12, 3)", "s": "STRING",
        "vc": "VARCHAR(5)", "ch": "CHAR(3)", "bin": "BYTES", "dt": "DATE",
        "ntz": "TIMESTAMP(6)"}
    assert (types["arr"]["type"], types["arr"]["element"]) == ("ARRAY", "INT")
    assert (types["m"]["type"], types["m"]["key"], types["m"]["value"]) == ("MAP", "STRING NOT NULL", "INT")
    assert types["st"]["type"] == "ROW"
    assert [(f["name"], f["type"]) for f in types["st"]["fields"]] == [("x", "INT"), ("y", "STRING")]


def test_describe_reports_the_declared_types(spark, db):
    create(spark, db)
    described = [(r.col_name, r.data_type) for r in
                 spark.sql(f"DESCRIBE TABLE {CAT}.{db}.all_types").collect()][:19]
    assert described == [
        ("id", "int"), ("b", "boolean"), ("ti", "tinyint"), ("si", "smallint"), ("i", "int"),
        ("bi", "bigint"), ("f", "float"), ("d", "double"), ("dec", "decimal(12,3)"),
        ("s", "string"), ("vc", "string"), ("ch", "string"), ("bin", "binary"),
        ("dt", "date"), ("ts", "timestamp"), ("ntz", "timestamp_ntz"), ("arr", "array<int>"),
        ("m", "map<string,int>"), ("st", "struct<x:int,y:string>")]


def test_dataframe_round_trip_including_nulls(spark, db):
    create(spark, db)
    spark.createDataFrame([FULL, EMPTYISH, NULLS], SPARK_SCHEMA).writeTo(f"{CAT}.{db}.all_types").append()
    got = {r.id: tuple(r) for r in spark.table(f"{CAT}.{db}.all_types").collect()}
    assert sorted(got) == [1, 2, 3]
    assert got[1] == FULL
    assert got[2] == EMPTYISH
    assert got[3] == NULLS


def test_sql_literals_round_trip(spark, db):
    create(spark, db)
    spark.sql(f"""
        INSERT INTO {CAT}.{db}.all_types VALUES (
            1, true, -128Y, 32767S, -2147483648, 9223372036854775807L, CAST(1.5 AS FLOAT),
            -2.25D, 123456789.123BD, 'héllo ✓', 'abcde', 'abc', X'0001FF', DATE'2024-02-29',
            TIMESTAMP'2024-01-02 03:04:05.123456', TIMESTAMP_NTZ'1999-12-31 23:59:59.999999',
            array(1, NULL, 3), map('k', 1, 'n', NULL), named_struct('x', 7, 'y', 'seven'))
    """)
    assert [tuple(r) for r in spark.table(f"{CAT}.{db}.all_types").collect()] == [FULL]


def test_char_pads_and_varchar_limits(spark, warehouse, db):
    spark.sql(f"CREATE TABLE {CAT}.{db}.cv (id INT, vc VARCHAR(5), ch CHAR(3))")
    spark.sql(f"INSERT INTO {CAT}.{db}.cv VALUES (1, 'ab', 'ab')")
    assert sql_rows(spark, f"SELECT id, vc, ch FROM {CAT}.{db}.cv") == [(1, "ab", "ab ")]
    with unchanged(spark, warehouse, db, "cv"):
        with pytest.raises(Exception) as excinfo:
            spark.sql(f"INSERT INTO {CAT}.{db}.cv VALUES (2, 'abcdef', 'a')")
        assert "length limitation" in error_text(excinfo).lower()


def test_nested_types_filter_and_project(spark, db):
    create(spark, db)
    spark.createDataFrame([FULL, EMPTYISH, NULLS], SPARK_SCHEMA).writeTo(f"{CAT}.{db}.all_types").append()
    assert sql_rows(spark, f"SELECT id, st.y, m['k'], arr[2] FROM {CAT}.{db}.all_types WHERE st.x = 7") == [
        (1, "seven", 1, 3)]
    assert sql_rows(spark, f"SELECT id FROM {CAT}.{db}.all_types WHERE ts IS NULL") == [(3,)]
