"""The rows of the append-table DML tests: (id INT, v STRING, p STRING), seeded by three INSERTs,
read through Lamina (at a version too) and through pypaimon, and compared with a model
{id: (v, p)}."""

from _support import sql_rows

# three INSERTs of ten rows each: every data file of INSERT k holds ids 10k .. 10k+9 only
BATCHES = [[(i, f"v{i}", "abc"[i % 3]) for i in range(10 * k, 10 * k + 10)] for k in range(3)]


def values(rows):
    return ", ".join(f"({i}, '{v}', '{p}')" for i, v, p in rows)


def rows(spark, name, version=None):
    at = f" VERSION AS OF {version}" if version is not None else ""
    return sorted(sql_rows(spark, f"SELECT id, v, p FROM {name}{at}"))


def expected(model):
    return sorted((i, v, p) for i, (v, p) in model.items())


def pypaimon_rows(catalog, name):
    table = catalog.get_table(name.split(".", 1)[1])
    builder = table.new_read_builder()
    read = builder.new_read().to_arrow(builder.new_scan().plan().splits()).to_pylist()
    return sorted((r["id"], r["v"], r["p"]) for r in read)


def merge_with_every_clause(spark, name, model):
    """Runs a MERGE with every kind of clause (NOT MATCHED BY SOURCE included) on table `name`;
    returns the model after it and how many rows it wrote (updated or inserted)."""
    source = [(11, "D", "x", "b"), (12, "U", "twelve", "a"), (13, "U", "thirteen", "b"), (40, "U", "forty", "b"),
              (41, "D", "gone", "c")]
    spark.createDataFrame(source, "id INT, op STRING, v STRING, p STRING").createOrReplaceTempView("src")
    spark.sql(f"""MERGE INTO {name} t USING src s ON t.id = s.id
        WHEN MATCHED AND s.op = 'D' THEN DELETE
        WHEN MATCHED THEN UPDATE SET v = s.v
        WHEN NOT MATCHED AND s.op = 'U' THEN INSERT (id, v, p) VALUES (s.id, s.v, s.p)
        WHEN NOT MATCHED BY SOURCE AND t.id >= 10 AND t.id < 13 THEN DELETE""")
    model, written = dict(model), 0
    for i, op, v, p in source:
        if i in model and op == "D":
            del model[i]
        elif i in model or op == "U":
            model[i] = (v, model[i][1] if i in model else p)
            written += 1
    matched = {i for i, *_ in source}
    return {i: r for i, r in model.items() if i in matched or not (10 <= i < 13)}, written
