"""Python entry points to Lamina's procedures: argument checks, then the JVM's session facade
(`lamina.spark.SessionApi`, over `lamina.api`) through py4j."""

from typing import Mapping, Optional, Sequence, Union

PartitionSpec = Mapping[str, object]


def compact(spark, table: str, partitions: Optional[Union[PartitionSpec, Sequence[PartitionSpec]]] = None,
            full: bool = False, catalog: str = "lamina") -> Optional[int]:
    """Compact a table; returns the COMPACT snapshot id, or None when nothing needed it.

    `table` is "db.table"; `partitions` is one mapping of partition column to value, or a list of
    them (all partitions when omitted); `full=True` merges every sorted run of each bucket of a
    primary-key table into one, and rewrites every bucket of an append table that holds more than one
    file or a deletion vector (minor: its small files, and its files with many deleted rows).
    """
    if not isinstance(table, str) or table.count(".") != 1 or not all(table.split(".")):
        raise ValueError(f"table must be 'database.table', got {table!r}")
    if not isinstance(catalog, str) or not catalog:
        raise ValueError(f"catalog must be a non-empty string, got {catalog!r}")
    if not isinstance(full, bool):
        raise ValueError(f"full must be True or False, got {full!r}")
    specs = [] if partitions is None else ([partitions] if isinstance(partitions, Mapping) else list(partitions))
    for spec in specs:
        if not isinstance(spec, Mapping) or not spec:
            raise ValueError(f"each partition must be a non-empty mapping of column to value, got {spec!r}")
    jvm = spark._jvm
    java_specs = jvm.java.util.ArrayList()
    for spec in specs:
        java_spec = jvm.java.util.HashMap()
        for column, value in spec.items():
            java_spec.put(str(column), str(value))
        java_specs.add(java_spec)
    snapshot = jvm.lamina.spark.SessionApi.compact(spark._jsparkSession, catalog, table, java_specs, full)
    return None if snapshot is None else int(snapshot)
