"""A separate writer process for test_concurrent_commits: its own JVM, the same warehouse.

usage: _writer.py WAREHOUSE TABLE FIRST_ID INSERTS ROWS_PER_INSERT
Inserts ids FIRST_ID .. FIRST_ID + INSERTS * ROWS_PER_INSERT - 1, one INSERT per batch of rows.
"""

import sys

from pyspark.sql import SparkSession

import lamina


def main(warehouse, table, first, inserts, per_insert):
    builder = (SparkSession.builder.master("local[1]").appName("lamina-test-writer")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1"))
    spark = lamina.configure(builder, warehouse=warehouse).getOrCreate()
    try:
        for n in range(inserts):
            start = first + n * per_insert
            spark.sql(f"INSERT INTO lamina.{table} SELECT CAST(id AS INT), 'proc' "
                      f"FROM range({start}, {start + per_insert})")
    finally:
        spark.stop()


if __name__ == "__main__":
    w, t, f, i, p = sys.argv[1:]
    main(w, t, int(f), int(i), int(p))
