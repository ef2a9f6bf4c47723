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
