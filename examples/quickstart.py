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

    show(spark, "tables", "SHOW TABLES IN lamina.demo")
    spark.stop()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python examples/quickstart.py WAREHOUSE_PATH")
    main(sys.argv[1])
