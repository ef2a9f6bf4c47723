"""Lamina quickstart: tables in Apache Paimon's format, driven from PySpark.

usage: python examples/quickstart.py WAREHOUSE_PATH
"""

import sys

from pyspark.sql import SparkSession

import lamina


def show(spark, title, query):
    print(f"\n== {title}\n-- {query.strip()}")
    spark.sql(query).show(truncate=False)


def main(warehouse):
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("lamina-quickstart")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
    )
    # Puts the Lamina jar on the classpath and registers the catalog `lamina` on the warehouse.
    spark = lamina.configure(builder, warehouse=warehouse, catalog="lamina").getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    print(f"Lamina warehouse: {warehouse}")

    spark.sql("CREATE NAMESPACE IF NOT EXISTS lamina.demo")
    show(spark, "namespaces", "SHOW NAMESPACES IN lamina")

    # An append table partitioned by day.
    spark.sql("""
        CREATE TABLE lamina.demo.events (
            id BIGINT NOT NULL COMMENT 'event id',
            user STRING,
            amount DECIMAL(10, 2),
            day DATE NOT NULL
        ) PARTITIONED BY (day)
        TBLPROPERTIES ('file.format' = 'parquet', 'file.compression' = 'zstd')
    """)
    spark.sql("""
        INSERT INTO lamina.demo.events VALUES
            (1, 'ana', 12.50, DATE'2024-05-01'),
            (2, 'bo', 3.20, DATE'2024-05-01'),
            (3, 'ana', 7.00, DATE'2024-05-02')
    """)
    spark.sql("INSERT INTO lamina.demo.events VALUES (4, 'cy', 99.99, DATE'2024-05-02')")
    show(spark, "all events", "SELECT * FROM lamina.demo.events ORDER BY id")
    show(spark, "one partition, pruned",
         "SELECT user, sum(amount) AS total FROM lamina.demo.events "
         "WHERE day = DATE'2024-05-02' GROUP BY user ORDER BY user")

    # A table with 4 fixed buckets: rows are spread by hash of `user_id`.
    spark.sql("""
        CREATE TABLE lamina.demo.users (user_id INT NOT NULL, name STRING, country STRING)
        TBLPROPERTIES ('bucket' = '4', 'bucket-key' = 'user_id')
    """)
    users = spark.createDataFrame(
        [(1, "ana", "PT"), (2, "bo", "SE"), (3, "cy", "CL"), (4, "dee", "NG"), (5, "eli", "IL")],
        "user_id INT, name STRING, country STRING",
    )
    users.writeTo("lamina.demo.users").append()
    show(spark, "users", "SELECT * FROM lamina.demo.users ORDER BY user_id")

    # Every commit is a snapshot; read an older one.
    show(spark, "snapshots (system table)",
         "SELECT snapshot_id, commit_kind, total_record_count, delta_record_count "
         "FROM lamina.demo.`events$snapshots` ORDER BY snapshot_id")
    show(spark, "events as of snapshot 1", "SELECT * FROM lamina.demo.events VERSION AS OF 1 ORDER BY id")
    print("\n== the same through a read option: spark.read.option('scan.snapshot-id', '1')")
    spark.read.option("scan.snapshot-id", "1").table("lamina.demo.events").orderBy("id").show()

    # Schema changes write a new schema file; old data files read under the new schema.
    spark.sql("ALTER TABLE lamina.demo.events ADD COLUMN channel STRING COMMENT 'where it came from'")
    spark.sql("INSERT INTO lamina.demo.events VALUES (5, 'bo', 1.00, DATE'2024-05-03', 'web')")
    show(spark, "after ADD COLUMN", "SELECT * FROM lamina.demo.events ORDER BY id")
    show(spark, "schemas (system table)",
         "SELECT schema_id, partition_keys, update_time FROM lamina.demo.`events$schemas`")
    show(spark, "partitions (system table)",
         "SELECT partition, record_count, file_count FROM lamina.demo.`events$partitions` ORDER BY partition")

    # Replace one partition.
    spark.sql("INSERT OVERWRITE lamina.demo.events PARTITION (day = DATE'2024-05-01') "
              "VALUES (10, 'new', 1.00, 'api')")
    show(spark, "after INSERT OVERWRITE of 2024-05-01", "SELECT * FROM lamina.demo.events ORDER BY id")

    # A primary-key table: each bucket is an LSM tree of sorted runs; a later write of a key replaces
    # its row (merge-engine 'deduplicate'), and reads merge the runs.
    spark.sql("""
        CREATE TABLE lamina.demo.accounts (id BIGINT NOT NULL, owner STRING, balance DECIMAL(10, 2))
        TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')
    """)
    spark.sql("INSERT INTO lamina.demo.accounts VALUES (1, 'ana', 10.00), (2, 'bo', 20.00), (3, 'cy', 30.00)")
    spark.sql("INSERT INTO lamina.demo.accounts VALUES (2, 'bo', 25.00)")
    show(spark, "accounts after an upsert of id 2", "SELECT * FROM lamina.demo.accounts ORDER BY id")

    # A batch of changes with a delete flag, applied by MERGE INTO: written as delete and upsert
    # records of the batch's keys, without reading the table.
    spark.sql("""
        SELECT * FROM VALUES (1L, NULL, NULL, true), (3L, 'cy', 35.00, false), (4L, 'dee', 40.00, false)
        AS changes(id, owner, balance, deleted)
    """).createOrReplaceTempView("changes")
    spark.sql("""
        MERGE INTO lamina.demo.accounts t USING changes s ON t.id = s.id
        WHEN MATCHED AND s.deleted = true THEN DELETE
        WHEN MATCHED THEN UPDATE SET *
        WHEN NOT MATCHED AND s.deleted = false THEN INSERT *
    """)
    show(spark, "accounts after the changes", "SELECT * FROM lamina.demo.accounts ORDER BY id")
    show(spark, "the latest record of each key, with its kind ($audit_log)",
         "SELECT rowkind, id, owner, balance FROM lamina.demo.`accounts$audit_log` ORDER BY id")

    # Row-level DML writes update and delete records into the tree instead of rewriting files.
    spark.sql("UPDATE lamina.demo.accounts SET balance = balance + 1 WHERE owner = 'dee'")
    spark.sql("DELETE FROM lamina.demo.accounts WHERE id = 2")
    show(spark, "after UPDATE and DELETE", "SELECT * FROM lamina.demo.accounts ORDER BY id")

    # A full compaction merges each bucket's sorted runs into one (also: spark-submit --class
    # lamina.jobs.Compact, or python -m lamina compact).
    snapshot = lamina.compact(spark, "demo.accounts", full=True)
    print(f"\n== full compaction committed snapshot {snapshot}")
    show(spark, "buckets (system table)",
         "SELECT bucket, record_count, file_count FROM lamina.demo.`accounts$buckets` ORDER BY bucket")

    show(spark, "tables", "SHOW TABLES IN lamina.demo")
    spark.stop()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python examples/quickstart.py WAREHOUSE_PATH")
    main(sys.argv[1])
