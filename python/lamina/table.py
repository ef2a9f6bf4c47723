"""`LaminaTable`: a Lamina table from Python, in the manner of delta-spark's `DeltaTable`.

Each method checks its arguments, naming the one that is wrong, then runs the SQL statement, procedure
or DataFrame read that does the work, so the API works alike on a classic session and on a Spark
Connect session (`SparkSession.builder.remote(...)`, with the Lamina jar and catalog configured on the
server); Lamina's errors arrive as the Python classes of `lamina.errors`. Every timestamp argument (`to_df(timestamp=)`, `older_than`, `rollback_to(timestamp=)`)
follows one rule: text and naive datetimes are times of the session's time zone
(`spark.sql.session.timeZone`, as `TIMESTAMP AS OF` reads them), aware datetimes are converted to it.
Conditions and values are SQL expression strings or PySpark Columns (values may also be Python
literals); a merge names the table by its alias (`alias()`, else `t`) and the source by the name
`DataFrame.alias` gave it (else `s`). DML, merges and compactions return a one-row DataFrame of what
they committed (`COMMIT_METRICS`)::

    from pyspark.sql import functions as F
    from lamina import LaminaTable

    t = LaminaTable.for_name(spark, "db.orders")
    t.update(F.col("status") == "new", {"status": F.lit("open")})
    (t.alias("t").merge(updates_df.alias("s"), F.col("t.id") == F.col("s.id"))
      .when_matched_update_all()
      .when_not_matched_insert_all()
      .execute())
    t.history(5).show()
"""

import copy
import datetime
import os
import re
import uuid
from typing import Dict, List, Mapping, Optional, Sequence, Union

from pyspark.sql import Column, DataFrame, SparkSession, functions as F

from lamina import _columns
from lamina._config import _CATALOG_CLASS
from lamina._names import call_sql, quote, sql_string, table_name
from lamina._procedures import PartitionSpec, compact as _compact
from lamina.errors import AlreadyExistsException, BadInputException, NotFoundException

__all__ = ["LaminaTable", "LaminaMergeBuilder", "LaminaTableBuilder", "COMMIT_METRICS"]

# The columns of the DataFrame that DML, merges and compactions return: the snapshots the operation
# committed (with the compaction a write may trigger, or a deletion-vector table's second commit),
# the operation of the first of them (`$snapshots.operation`: DELETE, UPDATE, MERGE, COMPACT...; NONE
# when nothing was committed), the files and records they added and removed, and the rows the operation
# inserted, updated, deleted and upserted, from `$snapshots`. Records are file records: a primary-key
# table's change records (deletes included), an append table's rewritten rows. Rows are logical rows,
# NULL where the operation cannot know them without reading the table: `num_upserted_rows` counts the rows
# written into a primary-key table by key (an INSERT, a MERGE planned as a write), each new or replacing
# its key's row; a MERGE of deletes planned as a write counts none (a key may be absent); a copy-on-write
# UPDATE or MERGE of an append table counts none (it rewrites the rows it leaves alone with the others).
COMMIT_METRICS = ("first_snapshot_id", "last_snapshot_id", "num_snapshots", "operation", "num_added_files",
                  "num_removed_files", "num_added_records", "num_removed_records", "num_inserted_rows",
                  "num_updated_rows", "num_deleted_rows", "num_upserted_rows")


def _check_catalog(catalog) -> str:
    if not isinstance(catalog, str) or not catalog:
        raise ValueError(f"catalog must be a non-empty string, got {catalog!r}")
    return catalog


def _resolve(name, catalog) -> tuple:
    """(catalog, 'db.table') of a name in one, two or three parts (lamina._names)."""
    cat, database, table = table_name(name, _check_catalog(catalog))
    return _check_catalog(cat), f"{database}.{table}"


def _sql_text(value, argument: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{argument} must be a non-empty SQL expression string, got {value!r}")
    return value


def _check_session(spark) -> None:
    if not isinstance(spark, SparkSession) and not (_columns.is_connect(spark) and hasattr(spark, "sql")):
        raise ValueError(f"spark must be a SparkSession, got {type(spark).__name__}")


def _condition(value, argument: str = "condition"):
    """A condition as given (SQL text or a Column), checked; None stays None."""
    if value is None or _columns.is_column(value):
        return value
    return _columns.text(value, argument)


def _value(value, argument: str):
    """A value to set or insert: SQL text or a Column as given, any other Python value as a literal."""
    if isinstance(value, str):
        return _columns.text(value, argument)
    if _columns.is_column(value):
        return value
    try:
        return F.lit(value)
    except Exception as e:  # noqa: BLE001 - named below
        raise ValueError(f"{argument} must be SQL text, a Column or a literal value, got {value!r}: {e}") from None


def _dataframe_alias(df: DataFrame) -> Optional[str]:
    """The name `df.alias(name)` gave the DataFrame, or None."""
    try:
        if _columns.is_connect(df.sparkSession):
            plan = df._plan
            return plan._alias if type(plan).__name__ == "SubqueryAlias" else None
        plan = df._jdf.queryExecution().logical()
        if plan.nodeName() == "SubqueryAlias":
            return plan.alias()
    except Exception:  # noqa: BLE001 - no alias to find
        pass
    return None


def _session_zone(spark) -> datetime.tzinfo:
    """The session's time zone (`spark.sql.session.timeZone`): a region ID or an offset."""
    name = spark.conf.get("spark.sql.session.timeZone")
    offset = re.fullmatch(r"(?:GMT|UTC)?([+-])(\d{1,2})(?::?(\d{2}))?", name.strip())
    if offset:
        sign = -1 if offset.group(1) == "-" else 1
        return datetime.timezone(sign * datetime.timedelta(hours=int(offset.group(2)), minutes=int(offset.group(3) or 0)))
    if name.upper() in ("UTC", "Z", "GMT"):
        return datetime.timezone.utc
    from zoneinfo import ZoneInfo

    return ZoneInfo(name)


def _time_text(spark, value, argument: str) -> Optional[str]:
    """A timestamp argument as the JVM reads it: 'yyyy-MM-dd HH:mm:ss.SSS' in the session's time zone.
    Text and naive datetimes are times of the session's zone; an aware datetime is converted to it."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(_session_zone(spark)).replace(tzinfo=None)
        value = value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    return None if value is None else _sql_text(value, argument)


def _snapshot_id(value, argument: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{argument} must be a snapshot id (an int >= 1), got {value!r}")
    return value


def _tag_name(value, argument: str = "tag") -> str:
    if not isinstance(value, str) or not value or value.isdigit():
        raise ValueError(f"{argument} must be a tag name (not a number), got {value!r}")
    return value


def _branch_name(value, argument: str = "branch") -> str:
    if not isinstance(value, str) or not value.strip() or value.isdigit() or "$" in value:
        raise ValueError(f"{argument} must be a branch name (not a number), got {value!r}")
    return value


def _assignments(values, argument: str) -> Dict[str, object]:
    if not isinstance(values, Mapping) or not values:
        raise ValueError(f"{argument} must be a non-empty mapping of column name to expression, got {values!r}")
    out = {}
    for name, value in values.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"{argument} has a column name that is not a non-empty string: {name!r}")
        out[name] = _value(value, f"{argument}[{name!r}]")
    return out


def _local_path(location: str) -> str:
    """A warehouse or table location without a `file:` scheme, normalised, for comparison."""
    if location.startswith("file://"):
        location = location[len("file://"):]
    elif location.startswith("file:"):
        location = location[len("file:"):]
    return location.rstrip("/") if "://" in location else os.path.normpath(os.path.abspath(location))


def _schema_columns(schema, argument: str) -> List[tuple]:
    """(name, SQL type, nullable, comment) of each field of a StructType or a DDL string
    ('id BIGINT NOT NULL, note STRING')."""
    from pyspark.sql.types import StructType

    if isinstance(schema, str):
        if not schema.strip():
            raise ValueError(f"{argument} must be a StructType or a non-empty DDL string, got {schema!r}")
        try:
            schema = StructType.fromDDL(schema)
        except Exception as e:  # noqa: BLE001 - named below
            raise ValueError(f"{argument}: {schema!r} is not a list of columns: {e}") from None
    if not isinstance(schema, StructType) or not schema.fields:
        raise ValueError(f"{argument} must be a StructType with fields or a DDL string, got {schema!r}")
    return [(f.name, f.dataType.simpleString(), f.nullable, f.metadata.get("comment")) for f in schema.fields]


class LaminaTable:
    """A table of a Lamina catalog (default `lamina`), named `table`, `database.table` or
    `catalog.database.table` (the catalog a three-part name gives is used instead of `catalog`).

    DML, merges and compactions return a one-row DataFrame, `lamina.COMMIT_METRICS`, of the snapshots
    the operation committed (a write's follow-up compaction included): `first_snapshot_id`,
    `last_snapshot_id`, `num_snapshots`, `operation` (the first snapshot's: DELETE, UPDATE, MERGE,
    WRITE, COMPACT, ...; NONE when nothing was committed), the data files and file records added and
    removed (`num_added_files`, `num_removed_files`, `num_added_records`, `num_removed_records`), and
    the logical rows it changed: `num_inserted_rows`, `num_updated_rows`, `num_deleted_rows` (row-level
    DML), `num_upserted_rows` (rows written into a primary-key table by key: each a new row or the new
    version of its key's row). A row count the operation cannot know without reading the table is NULL:
    a MERGE of deletes planned as a write (a key may be absent), a copy-on-write UPDATE or MERGE of an
    append table (it rewrites the rows it leaves alone with the changed ones).
    """

    def __init__(self, spark: SparkSession, name: str, catalog: str = "lamina"):
        _check_session(spark)
        self._spark = spark
        self._catalog, self._name = _resolve(name, catalog)
        self._alias: Optional[str] = None

    # --- finding tables -------------------------------------------------------------------------

    @classmethod
    def for_name(cls, spark: SparkSession, name: str, catalog: str = "lamina") -> "LaminaTable":
        """The table `name`: "t" (database `default`), "db.t" or "catalog.db.t", parts in backquotes as
        SQL takes them ("db.`my-table`" or "db.my-table"); raises NotFoundException when it does not exist.

        >>> orders = LaminaTable.for_name(spark, "shop.orders")
        """
        table = cls(spark, name, catalog)
        table._require()
        return table

    @classmethod
    def for_path(cls, spark: SparkSession, path: str) -> "LaminaTable":
        """The table stored at `path`, `<warehouse>/<database>.db/<table>` of a Lamina catalog configured
        on the session (the catalog whose warehouse holds the path); raises ValueError naming the
        warehouses when none does, NotFoundException when no table is there.

        >>> LaminaTable.for_path(spark, "/data/warehouse/shop.db/orders").name
        'lamina.shop.orders'
        """
        if not isinstance(path, (str, os.PathLike)) or not os.fspath(path).strip():
            raise ValueError(f"path must be a table directory path or URI, got {path!r}")
        wanted = _local_path(os.fspath(path))
        conf = spark.conf.getAll
        catalogs = {key[len("spark.sql.catalog."):]: conf.get(key + ".warehouse")
                    for key, value in conf.items()
                    if key.startswith("spark.sql.catalog.") and key.count(".") == 3 and value == _CATALOG_CLASS}
        for catalog, warehouse in sorted(catalogs.items()):
            if not warehouse:
                continue
            base = _local_path(warehouse) + "/"
            parts = wanted[len(base):].split("/") if wanted.startswith(base) else []
            if len(parts) == 2 and parts[0].endswith(".db") and parts[0] != ".db" and parts[1]:
                return cls.for_name(spark, f"{quote(catalog)}.{quote(parts[0][:-3])}.{quote(parts[1])}")
        raise ValueError(f"path {os.fspath(path)!r} is not <warehouse>/<database>.db/<table> of a Lamina catalog "
                         f"of this session (warehouses: {', '.join(f'{c}: {w}' for c, w in sorted(catalogs.items()))})")

    @classmethod
    def is_lamina_table(cls, spark: SparkSession, name: str, catalog: str = "lamina") -> bool:
        """Whether `name` ("db.t", named as `for_name` takes it) is a table of the Lamina catalog `catalog`.

        >>> LaminaTable.is_lamina_table(spark, "shop.orders")
        True
        """
        return cls(spark, name, catalog)._exists()

    @classmethod
    def create(cls, spark: SparkSession, name: str, catalog: str = "lamina") -> "LaminaTableBuilder":
        """A builder of CREATE TABLE `name` ("db.t"); `execute()` fails when the table exists.

        >>> (LaminaTable.create(spark, "shop.orders")
        ...    .add_column("id", "BIGINT", nullable=False)
        ...    .add_column("status", "STRING", comment="open, shipped, ...")
        ...    .add_column("day", "DATE", nullable=False)
        ...    .primary_key("id", "day").partitioned_by("day")
        ...    .property("bucket", 4)
        ...    .execute())
        """
        _check_session(spark)
        return LaminaTableBuilder(spark, *reversed(_resolve(name, catalog)), mode="create")

    @classmethod
    def create_if_not_exists(cls, spark: SparkSession, name: str, catalog: str = "lamina") -> "LaminaTableBuilder":
        """A builder of CREATE TABLE IF NOT EXISTS `name`: `execute()` leaves an existing table as it is.

        >>> LaminaTable.create_if_not_exists(spark, "shop.orders").add_column("id", "BIGINT").execute()
        """
        _check_session(spark)
        return LaminaTableBuilder(spark, *reversed(_resolve(name, catalog)), mode="if_not_exists")

    @classmethod
    def create_or_replace(cls, spark: SparkSession, name: str, catalog: str = "lamina") -> "LaminaTableBuilder":
        """A builder of CREATE OR REPLACE TABLE `name`: `execute()` drops an existing table, with its
        snapshots, tags and branches, and creates it anew from the builder's definition.

        >>> (LaminaTable.create_or_replace(spark, "shop.staging")
        ...    .add_column("id", "BIGINT", nullable=False).primary_key("id").execute())
        """
        _check_session(spark)
        return LaminaTableBuilder(spark, *reversed(_resolve(name, catalog)), mode="replace")

    @property
    def name(self) -> str:
        """The table's `catalog.database.table` name, as SQL and `for_name` take it (parts that SQL
        would not take bare in backquotes)."""
        return ".".join(p if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", p) else quote(p)
                        for p in [self._catalog, *self._name.split(".")])

    def _qualified(self, suffix: str = "") -> str:
        """`catalog`.`db`.`t` as SQL takes it; `suffix` ($snapshots, $branch_dev) goes on the table's name."""
        database, table = self._name.split(".")
        return f"{quote(self._catalog)}.{quote(database)}.{quote(table + suffix)}"

    def _exists(self) -> bool:
        return bool(self._spark.catalog.tableExists(self._qualified()))

    def _require(self) -> None:
        if not self._exists():
            raise NotFoundException(f"Table {self._catalog}.{self._name} does not exist")

    def _procedure(self, procedure: str, **arguments) -> list:
        """The rows of `CALL <catalog>.sys.<procedure>(table => 'db.t', ...)`."""
        self._require()
        return self._spark.sql(call_sql(self._catalog, *self._name.split("."), procedure, **arguments)).collect()

    def _system_table(self, kind: str) -> DataFrame:
        self._require()
        return self._spark.table(self._qualified("$" + kind))

    def _latest_snapshot_id(self) -> int:
        latest = self._spark.table(self._qualified("$snapshots")).agg({"snapshot_id": "max"}).collect()[0][0]
        return int(latest or 0)

    def _metrics(self, before: int) -> DataFrame:
        """The one-row COMMIT_METRICS of the snapshots committed after `before`."""
        committed = self._spark.table(self._qualified("$snapshots")).where(F.col("snapshot_id") > before)
        return committed.agg(
            F.min("snapshot_id").alias("first_snapshot_id"), F.max("snapshot_id").alias("last_snapshot_id"),
            F.count(F.lit(1)).alias("num_snapshots"),
            F.coalesce(F.min_by("operation", "snapshot_id"), F.lit("NONE")).alias("operation"),
            F.coalesce(F.sum("added_files"), F.lit(0)).cast("long").alias("num_added_files"),
            F.coalesce(F.sum("removed_files"), F.lit(0)).cast("long").alias("num_removed_files"),
            F.coalesce(F.sum("added_records"), F.lit(0)).cast("long").alias("num_added_records"),
            F.coalesce(F.sum("removed_records"), F.lit(0)).cast("long").alias("num_removed_records"),
            *[F.sum(f"{kind}_rows").cast("long").alias(f"num_{kind}_rows")
              for kind in ("inserted", "updated", "deleted", "upserted")])

    def _committing(self, run) -> DataFrame:
        """Runs `run()` (the statements of one operation) and returns the metrics of what it committed."""
        self._require()
        before = self._latest_snapshot_id()
        run()
        return self._metrics(before)

    # --- reading --------------------------------------------------------------------------------

    def to_df(self, version: Optional[int] = None, timestamp: Union[None, str, datetime.datetime] = None,
              tag: Optional[str] = None, branch: Optional[str] = None) -> DataFrame:
        """The table's rows: the latest snapshot, or the snapshot `version`, the latest one committed at
        or before `timestamp` (a datetime, or text such as '2024-05-01 12:00:00'), or the tag `tag`;
        of the branch `branch` when given (the main branch otherwise).

        >>> LaminaTable.for_name(spark, "shop.orders").to_df(version=3).count()
        >>> LaminaTable.for_name(spark, "shop.orders").to_df(branch="dev").count()
        """
        chosen = [n for n, v in (("version", version), ("timestamp", timestamp), ("tag", tag)) if v is not None]
        if len(chosen) > 1:
            raise ValueError(f"give at most one of version, timestamp and tag, got {', '.join(chosen)}")
        if version is not None:
            _snapshot_id(version, "version")
        if tag is not None:
            _tag_name(tag)
        if branch is not None:
            _branch_name(branch)
        if timestamp is not None:
            timestamp = _time_text(self._spark, timestamp, "timestamp")
        self._require()
        if branch is not None:
            self._require_branch(branch)
        reader = self._spark.read
        if version is not None or tag is not None:
            reader = reader.option("versionAsOf", str(version) if version is not None else tag)
        if timestamp is not None:
            reader = reader.option("timestampAsOf", timestamp)
        return reader.table(self._qualified("" if branch is None else "$branch_" + branch))

    def _require_branch(self, branch: str) -> None:
        names = sorted(r[0] for r in self._spark.table(self._qualified("$branches")).select("branch_name").collect())
        if branch not in names:
            known = f"; its branches are {', '.join(names)}" if names else "; the table has no branches"
            raise NotFoundException(f"Branch '{branch}' of table {self._name} does not exist{known}")

    def read_changes(self, start: Union[int, str], end: Union[int, str], scan_mode: Optional[str] = None) -> DataFrame:
        """The changes after snapshot (or tag) `start` up to and including `end`, each row with its
        `rowkind` (+I, -U, +U, -D), as the `incremental-between` read of `$audit_log`. `scan_mode`: 'auto'
        (the changelog where the table has one, else each commit's delta), 'delta', 'changelog' or 'diff'
        (the difference between the two snapshots).

        >>> LaminaTable.for_name(spark, "shop.orders").read_changes(3, 5).groupBy("rowkind").count().show()
        """
        bounds = []
        for value, argument in ((start, "start"), (end, "end")):
            if isinstance(value, str):
                bounds.append(_tag_name(value, argument))
            else:
                bounds.append(str(_snapshot_id(value, argument)))
        if scan_mode is not None and scan_mode not in ("auto", "delta", "changelog", "diff"):
            raise ValueError(f"scan_mode must be one of 'auto', 'delta', 'changelog', 'diff', got {scan_mode!r}")
        self._require()
        reader = self._spark.read.option("incremental-between", f"{bounds[0]},{bounds[1]}")
        if scan_mode is not None:
            reader = reader.option("incremental-between-scan-mode", scan_mode)
        return reader.table(self._qualified("$audit_log"))

    def history(self, limit: Optional[int] = None) -> DataFrame:
        """The table's snapshots (the `$snapshots` system table), newest first; at most `limit`.

        >>> LaminaTable.for_name(spark, "shop.orders").history(5).select("snapshot_id", "commit_kind").show()
        """
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise ValueError(f"limit must be a positive int, got {limit!r}")
        snapshots = self._system_table("snapshots").orderBy(F.col("snapshot_id").desc())
        return snapshots if limit is None else snapshots.limit(limit)

    def schema_history(self) -> DataFrame:
        """The table's schemas (the `$schemas` system table), oldest first.

        >>> LaminaTable.for_name(spark, "shop.orders").schema_history().show()
        """
        return self._system_table("schemas").orderBy("schema_id")

    def detail(self) -> DataFrame:
        """One row describing the table (the `$detail` system table): name, location, keys, bucket,
        merge engine, file format, schema id, latest snapshot and its kind, record count, number and
        size of data files.

        >>> LaminaTable.for_name(spark, "shop.orders").detail().show(vertical=True)
        """
        return self._system_table("detail").withColumn("name", F.lit(self.name))

    def options(self) -> Dict[str, str]:
        """The options the table stores (its TBLPROPERTIES in Paimon's keys).

        >>> LaminaTable.for_name(spark, "shop.orders").options()["bucket"]
        '4'
        """
        return {r[0]: r[1] for r in self._system_table("options").collect()}

    def add_columns(self, schema) -> None:
        """Adds the columns of `schema` (a StructType such as `df.schema`, or a DDL string
        'note STRING, score DOUBLE') at the end, as ALTER TABLE ... ADD COLUMNS does.

        >>> LaminaTable.for_name(spark, "shop.orders").add_columns("note STRING COMMENT 'free text'")
        """
        columns = []
        for name, data_type, nullable, comment in _schema_columns(schema, "schema"):
            column = f"{quote(name)} {data_type}" + ("" if nullable else " NOT NULL")
            if comment is not None:
                column += f" COMMENT {sql_string(str(comment))}"
            columns.append(column)
        self._spark.sql(f"ALTER TABLE {self.name} ADD COLUMNS ({', '.join(columns)})")

    def set_options(self, options: Mapping[str, object]) -> None:
        """Sets table options, checked as ALTER TABLE ... SET TBLPROPERTIES checks them.

        >>> LaminaTable.for_name(spark, "shop.orders").set_options({"write-only": "true"})
        """
        if not isinstance(options, Mapping) or not options:
            raise ValueError(f"options must be a non-empty mapping of option key to value, got {options!r}")
        pairs = []
        for key, value in sorted(options.items(), key=lambda kv: str(kv[0])):
            if not isinstance(key, str) or not key:
                raise ValueError(f"options has a key that is not a non-empty string: {key!r}")
            text = str(value).lower() if isinstance(value, bool) else str(value)
            pairs.append(f"{sql_string(key)} = {sql_string(text)}")
        self._require()
        self._spark.sql(f"ALTER TABLE {self._qualified()} SET TBLPROPERTIES ({', '.join(pairs)})")

    def unset_options(self, keys: Sequence[str]) -> None:
        """Removes table options (ALTER TABLE ... UNSET TBLPROPERTIES).

        >>> LaminaTable.for_name(spark, "shop.orders").unset_options(["write-only"])
        """
        if isinstance(keys, str) or not isinstance(keys, Sequence) or not keys:
            raise ValueError(f"keys must be a non-empty list of option keys, got {keys!r}")
        for key in keys:
            if not isinstance(key, str) or not key:
                raise ValueError(f"keys has an entry that is not a non-empty string: {key!r}")
        self._require()
        self._spark.sql(f"ALTER TABLE {self._qualified()} UNSET TBLPROPERTIES "
                        f"({', '.join(sql_string(k) for k in keys)})")

    # --- changing rows --------------------------------------------------------------------------

    def _target(self) -> str:
        """The table as DML names it: under the name `alias()` gave it, if any."""
        return self._qualified() + ("" if self._alias is None else f" AS {quote(self._alias)}")

    def _where(self, condition) -> str:
        if condition is None:
            return ""
        return f" WHERE ({_columns.sql(self._spark, condition, 'condition', self._qualified(), self._alias)})"

    def delete(self, condition: Union[None, str, Column] = None) -> DataFrame:
        """Deletes the rows matching `condition` (SQL text or a Column), every row when it is None: the
        same plan as DELETE FROM. Returns the COMMIT_METRICS of what it committed.

        >>> LaminaTable.for_name(spark, "shop.orders").delete("status = 'cancelled'")
        >>> LaminaTable.for_name(spark, "shop.orders").delete(F.col("status") == "cancelled").show()
        """
        condition = _condition(condition)
        return self._committing(lambda: self._spark.sql(f"DELETE FROM {self._target()}" + self._where(condition)))

    def update(self, condition: Union[None, str, Column] = None,
               set: Optional[Mapping[str, Union[str, Column, object]]] = None) -> DataFrame:
        """Sets columns of the rows matching `condition` (SQL text or a Column; every row when None):
        `set` maps a column to its new value, SQL text ("'shipped'", "amount * 2"), a Column or a
        Python literal. The same plan as UPDATE; returns the COMMIT_METRICS of what it committed.

        >>> LaminaTable.for_name(spark, "shop.orders").update("id = 7", {"status": "'shipped'"})
        >>> LaminaTable.for_name(spark, "shop.orders").update(F.col("id") == 7, {"status": F.lit("shipped")})
        """
        condition = _condition(condition)
        values = _assignments(set, "set")

        def run():
            table = self._qualified()
            assignments = ", ".join(
                f"{quote(c)} = ({_columns.sql(self._spark, v, f'set[{c!r}]', table, self._alias)})"
                for c, v in sorted(values.items()))
            self._spark.sql(f"UPDATE {self._target()} SET {assignments}" + self._where(condition))
        return self._committing(run)

    def alias(self, name: str) -> "LaminaTable":
        """This table under the name `name` in a merge's condition and clauses, as delta-spark's
        `DeltaTable.alias`; the source's name is the one `DataFrame.alias` gave it.

        >>> (LaminaTable.for_name(spark, "shop.orders").alias("o")
        ...    .merge(changes.alias("c"), "o.id = c.id").when_matched_update_all().execute())
        """
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"name must be a plain identifier, got {name!r}")
        aliased = copy.copy(self)
        aliased._alias = name
        return aliased

    def merge(self, source: DataFrame, condition: Union[str, Column], target_alias: Optional[str] = None,
              source_alias: Optional[str] = None) -> "LaminaMergeBuilder":
        """Starts a MERGE INTO this table from `source` on `condition` (SQL text or a Column); add WHEN
        clauses, then `execute()`, which returns the COMMIT_METRICS of what it committed. The condition and the clauses' expressions name the table by
        `target_alias` (else the name `alias()` gave it, else `t`) and the source by `source_alias` (else
        the name `source.alias(...)` gave it, else `s`).

        >>> (LaminaTable.for_name(spark, "shop.orders")
        ...    .merge(changes, "t.id = s.id")
        ...    .when_matched_delete("s.op = 'D'")
        ...    .when_matched_update_all()
        ...    .when_not_matched_insert_all("s.op != 'D'")
        ...    .execute())
        """
        if not isinstance(source, DataFrame):
            raise ValueError(f"source must be a DataFrame, got {type(source).__name__}")
        if target_alias is None:
            target_alias = self._alias or "t"
        if source_alias is None:
            source_alias = _dataframe_alias(source) or "s"
        for argument, alias in (("target_alias", target_alias), ("source_alias", source_alias)):
            if not isinstance(alias, str) or not alias.isidentifier():
                raise ValueError(f"{argument} must be a plain identifier, got {alias!r}")
        if target_alias == source_alias:
            raise ValueError(f"target_alias and source_alias must differ, both are {target_alias!r}")
        if condition is None:
            raise ValueError("condition must be a non-empty SQL expression string or a Column, got None")
        return LaminaMergeBuilder(self, source, _condition(condition), target_alias, source_alias)

    # --- maintenance ----------------------------------------------------------------------------

    def compact(self, partitions: Optional[Union[PartitionSpec, Sequence[PartitionSpec]]] = None,
                full: bool = False, order_strategy: Optional[str] = None,
                order_by: Optional[Union[str, Sequence[str]]] = None, where: Optional[str] = None) -> DataFrame:
        """Compacts the table as `CALL sys.compact` does: a primary-key table's buckets (`full=True`:
        each into one sorted run), an append table's small files packed into `target-file-size` files,
        or, with `order_strategy` ("order", "zorder", "hilbert") and `order_by` columns, an append
        table's partitions rewritten sorted by them, so that filters on those columns skip files. A
        postponed-bucket table's rows waiting in `bucket-postpone` are first assigned to buckets.
        `partitions` (mappings of partition column to value) or `where` (a SQL condition on partition
        columns) pick the partitions. Returns the COMMIT_METRICS of what it committed (`num_snapshots`
        0 when nothing needed compacting).

        >>> LaminaTable.for_name(spark, "shop.events").compact(order_strategy="zorder", order_by=["user", "amount"])
        """
        return self._committing(lambda: _compact(
            self._spark, self._qualified(), partitions=partitions, full=full, catalog=self._catalog,
            order_strategy=order_strategy, order_by=order_by, where=where))

    def rescale(self, bucket_num: int,
                partitions: Optional[Union[PartitionSpec, Sequence[PartitionSpec]]] = None) -> DataFrame:
        """Rewrites the table's `partitions` (mappings of partition column to value; all of them when
        omitted) into `bucket_num` buckets, in one commit, as `CALL sys.rescale` does: readers see the
        old layout or the new one whole, and earlier snapshots still read as they did. Without
        `partitions` the table's `bucket` option becomes `bucket_num` too (the count of partitions
        written later). For tables with a fixed bucket count. Returns the COMMIT_METRICS of what it
        committed (`num_snapshots` 0 when every partition already had that count).

        >>> LaminaTable.for_name(spark, "shop.orders").rescale(16, partitions={"day": "2024-05-01"})
        """
        if isinstance(bucket_num, bool) or not isinstance(bucket_num, int) or bucket_num < 1:
            raise ValueError(f"bucket_num must be an int above 0, got {bucket_num!r}")
        specs = [] if partitions is None else ([partitions] if isinstance(partitions, Mapping) else list(partitions))
        for spec in specs:
            if not isinstance(spec, Mapping) or not spec:
                raise ValueError(f"each partition must be a non-empty mapping of column to value, got {spec!r}")
            for column, value in spec.items():
                if any(c in f"{column}{value}" for c in ",;="):
                    raise ValueError(f"partition {dict(spec)!r}: a column or value holding ',', ';' or '=' "
                                     "cannot be named to rescale")
        text = ";".join(",".join(f"{c}={v}" for c, v in spec.items()) for spec in specs)
        return self._committing(lambda: self._procedure("rescale", bucket_num=bucket_num, partition=text))

    def rewrite_file_index(self, where: Optional[str] = None) -> DataFrame:
        """Gives the table's data files (those of the partitions the SQL condition `where` on partition
        columns selects; all when None) the file indexes its `file-index.*` options ask for now, in one
        commit, as `CALL sys.rewrite_file_index` does: for a table that gained a bloom filter or a bitmap
        index after its files were written. The rows do not change; earlier snapshots read as they did.
        Returns the COMMIT_METRICS of what it committed (`num_snapshots` 0 when every file already had
        its indexes).

        >>> t = LaminaTable.for_name(spark, "shop.orders")
        >>> t.set_options({"file-index.bloom-filter.columns": "customer"})
        >>> t.rewrite_file_index(where="day >= '2024-05-01'")
        """
        if where is not None:
            _sql_text(where, "where")
        return self._committing(lambda: self._procedure("rewrite_file_index", where=where))

    def expire_snapshots(self, retain_max: Optional[int] = None, retain_min: Optional[int] = None,
                         older_than: Union[None, str, datetime.datetime] = None,
                         max_deletes: Optional[int] = None) -> int:
        """Expires snapshots as `CALL sys.expire_snapshots` does (the table's `snapshot.*` options,
        each given argument replacing its option); files a kept snapshot or a tag uses stay. Returns
        how many snapshots expired.

        >>> LaminaTable.for_name(spark, "shop.orders").expire_snapshots(retain_max=10)
        """
        return self._expire("expire_snapshots", retain_max, retain_min, older_than, max_deletes)

    def expire_changelogs(self, retain_max: Optional[int] = None, retain_min: Optional[int] = None,
                          older_than: Union[None, str, datetime.datetime] = None,
                          max_deletes: Optional[int] = None, delete_all: bool = False) -> int:
        """Expires the changelogs kept longer than snapshots (`changelog/changelog-<id>`) as
        `CALL sys.expire_changelogs` does (the table's `changelog.*` options, each given argument
        replacing its option); `delete_all=True` removes every kept changelog. Returns how many
        changelogs expired.

        >>> LaminaTable.for_name(spark, "shop.orders").expire_changelogs(retain_max=100)
        """
        if not isinstance(delete_all, bool):
            raise ValueError(f"delete_all must be True or False, got {delete_all!r}")
        return self._expire("expire_changelogs", retain_max, retain_min, older_than, max_deletes,
                            delete_all=delete_all)

    def _expire(self, procedure: str, retain_max, retain_min, older_than, max_deletes, **more) -> int:
        for argument, value in (("retain_max", retain_max), ("retain_min", retain_min), ("max_deletes", max_deletes)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ValueError(f"{argument} must be a positive int, got {value!r}")
        older_than = _time_text(self._spark, older_than, "older_than")
        return int(self._procedure(procedure, retain_max=retain_max, retain_min=retain_min,
                                   older_than=older_than, max_deletes=max_deletes, **more)[0][0])

    def purge_files(self) -> None:
        """Empties the table for good, as `CALL sys.purge_files` does (Paimon's procedure): its
        branches, tags and consumers are deleted, a TRUNCATE commits, every snapshot but that empty
        latest one expires, and every file no snapshot refers to goes, whatever its age (a write running
        meanwhile fails). The schema stays and writes go on. Nothing undoes it.

        >>> LaminaTable.for_name(spark, "scratch.events").purge_files()
        """
        self._procedure("purge_files")

    def remove_orphan_files(self, older_than: Union[None, str, datetime.datetime] = None,
                            dry_run: bool = False) -> Dict[str, int]:
        """Removes the files that no snapshot or tag refers to and that were last modified before
        `older_than` (default: a day ago, so that a running write's files are never touched), as
        `CALL sys.remove_orphan_files` does; with `dry_run` only counts them. Returns
        {"deleted_file_count": n, "deleted_file_total_bytes": b}.

        >>> LaminaTable.for_name(spark, "shop.orders").remove_orphan_files(dry_run=True)
        """
        older_than = _time_text(self._spark, older_than, "older_than")
        if not isinstance(dry_run, bool):
            raise ValueError(f"dry_run must be True or False, got {dry_run!r}")
        count, size = self._procedure("remove_orphan_files", older_than=older_than, dry_run=dry_run)[0]
        return {"deleted_file_count": int(count), "deleted_file_total_bytes": int(size)}

    def expire_partitions(self, expiration_time: Optional[str] = None, timestamp_formatter: Optional[str] = None,
                          timestamp_pattern: Optional[str] = None, expire_strategy: Optional[str] = None,
                          max_expires: Optional[int] = None) -> List[str]:
        """Drops the partitions older than `expiration_time` ('7 d'), as `CALL sys.expire_partitions`
        does; each argument left None takes the table's `partition.*` option. A partition is dated by
        its values (`timestamp_pattern` such as '$dt' or '$year-$month-$day', read with
        `timestamp_formatter` such as 'yyyyMMdd'), or with `expire_strategy='update-time'` by its newest
        file. Returns the partitions dropped, as 'dt=2024-01-01'.

        >>> LaminaTable.for_name(spark, "shop.orders").expire_partitions("90 d", timestamp_formatter="yyyyMMdd")
        """
        for argument, value in (("expiration_time", expiration_time), ("timestamp_formatter", timestamp_formatter),
                                ("timestamp_pattern", timestamp_pattern)):
            if value is not None:
                _sql_text(value, argument)
        if expire_strategy is not None and expire_strategy not in ("values-time", "update-time"):
            raise ValueError(f"expire_strategy must be 'values-time' or 'update-time', got {expire_strategy!r}")
        if max_expires is not None and (isinstance(max_expires, bool) or not isinstance(max_expires, int)
                                        or max_expires < 1):
            raise ValueError(f"max_expires must be a positive int, got {max_expires!r}")
        rows = self._procedure("expire_partitions", expiration_time=expiration_time,
                               timestamp_formatter=timestamp_formatter, timestamp_pattern=timestamp_pattern,
                               expire_strategy=expire_strategy, max_expires=max_expires)
        return [str(r[0]) for r in rows if r[0] != "No expired partitions."]

    def create_tag(self, tag: str, snapshot_id: Optional[int] = None, time_retained: Optional[str] = None) -> int:
        """Tags the snapshot `snapshot_id` (the latest when None), kept for `time_retained` ('7 d';
        None: until deleted); returns the tagged snapshot's id. Read it with `to_df(tag=...)`.

        >>> LaminaTable.for_name(spark, "shop.orders").create_tag("2024-05-01", time_retained="30 d")
        """
        _tag_name(tag)
        if snapshot_id is not None:
            _snapshot_id(snapshot_id, "snapshot_id")
        if time_retained is not None:
            _sql_text(time_retained, "time_retained")
        self._procedure("create_tag", tag=tag, snapshot_id=snapshot_id, time_retained=time_retained)
        tagged = self._spark.table(self._qualified("$tags")).where(F.col("tag_name") == tag).select("snapshot_id").collect()
        return int(tagged[0][0])

    def delete_tag(self, tag: str) -> None:
        """Deletes the tag (and the files only its snapshot used, if that snapshot expired).

        >>> LaminaTable.for_name(spark, "shop.orders").delete_tag("2024-05-01")
        """
        if not isinstance(tag, str) or not tag:
            raise ValueError(f"tag must be a tag name, got {tag!r}")
        self._procedure("delete_tag", tag=tag)

    def expire_tags(self, older_than: Union[None, str, datetime.datetime] = None) -> List[str]:
        """Deletes the tags whose `time_retained` has run out and, given `older_than`, the tags created
        before it, as `CALL sys.expire_tags` does; returns the names deleted.

        >>> LaminaTable.for_name(spark, "shop.orders").expire_tags(older_than="2024-01-01 00:00:00")
        """
        older_than = _time_text(self._spark, older_than, "older_than")
        return [str(r[0]) for r in self._procedure("expire_tags", older_than=older_than) if r[0] != "No expired tags."]

    def tags(self) -> DataFrame:
        """The table's tags (the `$tags` system table).

        >>> LaminaTable.for_name(spark, "shop.orders").tags().show()
        """
        return self._system_table("tags")

    def create_branch(self, branch: str, tag: Optional[str] = None) -> None:
        """Creates the branch `branch` from the tag `tag`, or, without a tag, an empty branch with the
        table's current schema, as `CALL sys.create_branch` does. Read it with `to_df(branch=...)` or
        as `db.t$branch_<name>` in SQL, where INSERT writes it.

        >>> t = LaminaTable.for_name(spark, "shop.orders")
        >>> t.create_tag("v1")
        >>> t.create_branch("dev", tag="v1")
        """
        _branch_name(branch)
        if branch == "main":
            raise ValueError("branch must not be 'main': that is the table itself")
        if tag is not None:
            _tag_name(tag)
        self._procedure("create_branch", branch=branch, tag=tag)

    def delete_branch(self, branch: str) -> None:
        """Deletes the branch (its snapshots, schemas and tags; data files only it wrote go with
        `remove_orphan_files`).

        >>> LaminaTable.for_name(spark, "shop.orders").delete_branch("dev")
        """
        _branch_name(branch)
        self._procedure("delete_branch", branch=branch)

    def fast_forward(self, branch: str) -> None:
        """Makes the main branch the branch `branch`, as `CALL sys.fast_forward` does: main's snapshots
        from the branch's first one on are replaced by the branch's. Run it while no one writes to main.

        >>> LaminaTable.for_name(spark, "shop.orders").fast_forward("dev")
        """
        _branch_name(branch)
        self._procedure("fast_forward", branch=branch)

    def branches(self) -> DataFrame:
        """The table's branches (the `$branches` system table: branch_name, create_time).

        >>> LaminaTable.for_name(spark, "shop.orders").branches().show()
        """
        return self._system_table("branches")

    def consumers(self) -> DataFrame:
        """The table's streaming consumers (the `$consumers` system table: consumer_id, next_snapshot_id).

        >>> LaminaTable.for_name(spark, "shop.orders").consumers().show()
        """
        return self._system_table("consumers")

    def reset_consumer(self, consumer_id: str, next_snapshot_id: Optional[int] = None) -> None:
        """Moves the streaming consumer `consumer_id` so that its next stream starts at snapshot
        `next_snapshot_id` (from the earliest snapshot kept to one past the latest), or, without it,
        removes the consumer, which then no longer holds snapshots back from expiring. As
        `CALL sys.reset_consumer`.

        >>> LaminaTable.for_name(spark, "shop.orders").reset_consumer("dashboard", next_snapshot_id=42)
        """
        if not isinstance(consumer_id, str) or not consumer_id.strip():
            raise ValueError(f"consumer_id must be a non-empty string, got {consumer_id!r}")
        if next_snapshot_id is None:
            self._procedure("reset_consumer", consumerId=consumer_id)
        else:
            self._procedure("reset_consumer", consumerId=consumer_id,
                            nextSnapshotId=_snapshot_id(next_snapshot_id, "next_snapshot_id"))

    def rollback_to(self, version: Optional[int] = None, tag: Optional[str] = None,
                    timestamp: Union[None, datetime.datetime, int] = None) -> int:
        """Rolls the table back to the snapshot `version`, the tag `tag`, or the latest snapshot committed
        at or before `timestamp` (a datetime, or epoch milliseconds). As Paimon's rollback, and unlike
        Delta's RESTORE, this deletes every later snapshot (and the files only they use): the history
        after the target is gone and time travel to it fails. Returns the snapshot id now latest. Run it
        while no one writes to the table. `restore_to` is the non-destructive alternative.

        >>> LaminaTable.for_name(spark, "shop.orders").rollback_to(version=12)
        """
        chosen = [n for n, v in (("version", version), ("tag", tag), ("timestamp", timestamp)) if v is not None]
        if len(chosen) != 1:
            raise ValueError(f"give exactly one of version, tag and timestamp, got {', '.join(chosen) or 'none'}")
        if version is not None:
            return int(self._procedure("rollback", snapshot=_snapshot_id(version, "version"))[0][1])
        if tag is not None:
            return int(self._procedure("rollback", tag=_tag_name(tag))[0][1])
        if isinstance(timestamp, datetime.datetime):
            if timestamp.tzinfo is None:
                timestamp = timestamp.replace(tzinfo=_session_zone(self._spark))
            timestamp = int(timestamp.timestamp() * 1000)
        if isinstance(timestamp, bool) or not isinstance(timestamp, int) or timestamp < 0:
            raise ValueError(f"timestamp must be a datetime or epoch milliseconds, got {timestamp!r}")
        return int(self._procedure("rollback_to_timestamp", timestamp=timestamp)[0][1])

    def restore_to(self, version: Optional[int] = None, tag: Optional[str] = None,
                   timestamp: Union[None, str, datetime.datetime] = None) -> DataFrame:
        """Restores the table to its rows at the snapshot `version`, the tag `tag`, or the latest snapshot
        committed at or before `timestamp` (as `to_df` reads it) with a new commit, as Delta's RESTORE
        does: the history stays, later snapshots remain readable by time travel, and readers and
        streams see the restore as an overwrite of the whole table. Unlike `rollback_to` it rewrites
        the old rows into new files (the cost of an INSERT OVERWRITE of the table): expiration, Paimon's
        included, deletes a file once the snapshot that removed it expires, so old files are never
        listed again. A column added since reads as NULL. Returns the COMMIT_METRICS of what it
        committed.

        >>> LaminaTable.for_name(spark, "shop.orders").restore_to(version=12).show()
        """
        chosen = [n for n, v in (("version", version), ("tag", tag), ("timestamp", timestamp)) if v is not None]
        if len(chosen) != 1:
            raise ValueError(f"give exactly one of version, tag and timestamp, got {', '.join(chosen) or 'none'}")
        old = self.to_df(version=version, tag=tag, timestamp=timestamp)
        present = set(old.columns)
        columns = [F.col(quote(f.name)) if f.name in present else F.lit(None).cast(f.dataType).alias(f.name)
                   for f in self.to_df().schema.fields]
        view = "lamina_restore_source_" + uuid.uuid4().hex
        mode_key = "spark.sql.sources.partitionOverwriteMode"

        def run():
            old.select(*columns).createOrReplaceTempView(view)
            mode = self._spark.conf.get(mode_key)
            self._spark.conf.set(mode_key, "static")  # the whole table, not only the partitions written
            try:
                self._spark.sql(f"INSERT OVERWRITE {self._qualified()} SELECT * FROM {quote(view)}")
            finally:
                self._spark.conf.set(mode_key, mode)
                self._spark.catalog.dropTempView(view)
        return self._committing(run)

    def __repr__(self) -> str:
        return f"LaminaTable({self.name})"


class LaminaMergeBuilder:
    """The WHEN clauses of a merge, applied in the order given, as in SQL MERGE INTO. Conditions and
    values are SQL text or Columns naming the table and the source by their aliases; a value may
    also be a Python literal."""

    # kind -> (WHEN ..., the action's SQL, or None for an action built from the clause's values)
    _KINDS = {
        "matched_update": ("MATCHED", None),
        "matched_update_all": ("MATCHED", "UPDATE SET *"),
        "matched_delete": ("MATCHED", "DELETE"),
        "not_matched_insert": ("NOT MATCHED", None),
        "not_matched_insert_all": ("NOT MATCHED", "INSERT *"),
        "not_matched_by_source_update": ("NOT MATCHED BY SOURCE", None),
        "not_matched_by_source_delete": ("NOT MATCHED BY SOURCE", "DELETE"),
    }

    def __init__(self, table: LaminaTable, source: DataFrame, condition, target_alias: str, source_alias: str):
        self._table = table
        self._source = source
        self._condition = condition
        self._target_alias = target_alias
        self._source_alias = source_alias
        self._clauses: List[tuple] = []

    def _add(self, kind: str, condition, assignments=None, argument: str = "set") -> "LaminaMergeBuilder":
        values = {} if assignments is None else _assignments(assignments, argument)
        self._clauses.append((kind, _condition(condition), values, argument))
        return self

    def when_matched_update(self, condition: Union[None, str, Column] = None,
                            set: Optional[Mapping[str, object]] = None) -> "LaminaMergeBuilder":
        """WHEN MATCHED [AND condition] THEN UPDATE SET column = value, ..."""
        return self._add("matched_update", condition, set if set is not None else {}, "set")

    def when_matched_update_all(self, condition: Union[None, str, Column] = None) -> "LaminaMergeBuilder":
        """WHEN MATCHED [AND condition] THEN UPDATE SET *"""
        return self._add("matched_update_all", condition)

    def when_matched_delete(self, condition: Union[None, str, Column] = None) -> "LaminaMergeBuilder":
        """WHEN MATCHED [AND condition] THEN DELETE"""
        return self._add("matched_delete", condition)

    def when_not_matched_insert(self, condition: Union[None, str, Column] = None,
                                values: Optional[Mapping[str, object]] = None) -> "LaminaMergeBuilder":
        """WHEN NOT MATCHED [AND condition] THEN INSERT (column, ...) VALUES (value, ...)"""
        return self._add("not_matched_insert", condition, values if values is not None else {}, "values")

    def when_not_matched_insert_all(self, condition: Union[None, str, Column] = None) -> "LaminaMergeBuilder":
        """WHEN NOT MATCHED [AND condition] THEN INSERT *"""
        return self._add("not_matched_insert_all", condition)

    def when_not_matched_by_source_update(self, condition: Union[None, str, Column] = None,
                                          set: Optional[Mapping[str, object]] = None) -> "LaminaMergeBuilder":
        """WHEN NOT MATCHED BY SOURCE [AND condition] THEN UPDATE SET column = value, ..."""
        return self._add("not_matched_by_source_update", condition, set if set is not None else {}, "set")

    def when_not_matched_by_source_delete(self, condition: Union[None, str, Column] = None) -> "LaminaMergeBuilder":
        """WHEN NOT MATCHED BY SOURCE [AND condition] THEN DELETE"""
        return self._add("not_matched_by_source_delete", condition)

    def _sql(self, value, argument: str) -> str:
        return _columns.sql(self._table._spark, value, argument, self._table._qualified(), self._target_alias,
                            self._source, self._source_alias)

    def _clause(self, kind: str, condition, values: Dict[str, object], argument: str) -> str:
        when, action = self._KINDS[kind]
        if action is None:
            texts = [(c, self._sql(v, f"{argument}[{c!r}]")) for c, v in sorted(values.items())]
            if kind == "not_matched_insert":
                action = (f"INSERT ({', '.join(quote(c) for c, _ in texts)}) "
                          f"VALUES ({', '.join(f'({v})' for _, v in texts)})")
            else:
                action = "UPDATE SET " + ", ".join(f"{quote(c)} = ({v})" for c, v in texts)
        guard = "" if condition is None else f" AND ({self._sql(condition, 'condition')})"
        return f"WHEN {when}{guard} THEN {action}"

    def execute(self) -> DataFrame:
        """Runs the merge: the plan SQL MERGE INTO makes (Lamina's write-only upsert where it applies).
        The source is a temporary view for the statement's duration. Returns the COMMIT_METRICS of what
        it committed."""
        if not self._clauses:
            raise ValueError("a merge needs at least one when_... clause before execute()")
        table = self._table
        view = "lamina_merge_source_" + uuid.uuid4().hex

        def run():  # after the table is known to exist: Columns resolve against it
            on = self._sql(self._condition, "condition")
            clauses = " ".join(self._clause(*c) for c in self._clauses)
            self._source.createOrReplaceTempView(view)
            try:
                table._spark.sql(f"MERGE INTO {table._qualified()} AS {quote(self._target_alias)} USING {quote(view)} "
                                 f"AS {quote(self._source_alias)} ON ({on}) {clauses}")
            finally:
                table._spark.catalog.dropTempView(view)
        return table._committing(run)


class LaminaTableBuilder:
    """Columns, keys, partitioning and options of a table to create; `execute()` creates it."""

    def __init__(self, spark: SparkSession, name: str, catalog: str, mode: str):
        self._spark = spark
        self._name = name
        self._catalog = catalog
        self._mode = mode
        self._columns: List[tuple] = []
        self._primary_key: List[str] = []
        self._partitioned_by: List[str] = []
        self._properties: Dict[str, str] = {}
        self._comment: Optional[str] = None

    def add_column(self, name: str, data_type, nullable: bool = True, comment: Optional[str] = None) -> "LaminaTableBuilder":
        """Adds a column: `data_type` is a SQL type ('BIGINT', 'DECIMAL(10, 2)', 'ARRAY<STRING>') or a
        PySpark DataType."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"name must be a non-empty column name, got {name!r}")
        if any(c[0] == name for c in self._columns):
            raise ValueError(f"name: column {name!r} is added twice")
        if hasattr(data_type, "simpleString"):
            data_type = data_type.simpleString()
        _sql_text(data_type, "data_type")
        if not isinstance(nullable, bool):
            raise ValueError(f"nullable must be True or False, got {nullable!r}")
        if comment is not None and not isinstance(comment, str):
            raise ValueError(f"comment must be a string, got {comment!r}")
        self._columns.append((name, data_type, nullable, comment))
        return self

    def add_columns(self, schema) -> "LaminaTableBuilder":
        """Adds every column of `schema` (a StructType such as `df.schema`, or a DDL string
        'id BIGINT NOT NULL, status STRING'), with its nullability and comment.

        >>> LaminaTable.create(spark, "shop.orders").add_columns(orders_df.schema).primary_key("id").execute()
        """
        for name, data_type, nullable, comment in _schema_columns(schema, "schema"):
            self.add_column(name, data_type, nullable, comment)
        return self

    def primary_key(self, *columns: str) -> "LaminaTableBuilder":
        """The primary-key columns (a primary-key table: an LSM merge tree per bucket)."""
        self._primary_key = self._names(columns, "primary_key")
        return self

    def partitioned_by(self, *columns: str) -> "LaminaTableBuilder":
        """The partition columns."""
        self._partitioned_by = self._names(columns, "partitioned_by")
        return self

    def property(self, key: str, value) -> "LaminaTableBuilder":
        """A table option (Paimon's keys: 'bucket', 'merge-engine', 'file.format', ...)."""
        if not isinstance(key, str) or not key:
            raise ValueError(f"key must be a non-empty option key, got {key!r}")
        self._properties[key] = str(value).lower() if isinstance(value, bool) else str(value)
        return self

    def comment(self, text: str) -> "LaminaTableBuilder":
        """The table's comment."""
        if not isinstance(text, str):
            raise ValueError(f"text must be a string, got {text!r}")
        self._comment = text
        return self

    @staticmethod
    def _names(columns, argument) -> List[str]:
        if not columns or not all(isinstance(c, str) and c for c in columns):
            raise ValueError(f"{argument} needs one or more column names, got {columns!r}")
        return list(columns)

    def execute(self) -> LaminaTable:
        """Creates the table with one CREATE TABLE statement (checked as SQL checks it) and returns it."""
        if not self._columns:
            raise ValueError("a table needs at least one add_column(...) before execute()")
        table = LaminaTable(self._spark, self._name, self._catalog)
        if table._exists():
            if self._mode == "if_not_exists":
                return table
            if self._mode == "create":
                raise AlreadyExistsException(f"Table {self._catalog}.{self._name} already exists")
            self._spark.sql(f"DROP TABLE {table._qualified()}")
        columns = []
        for name, data_type, nullable, comment in self._columns:
            column = f"{quote(name)} {data_type}" + ("" if nullable else " NOT NULL")
            columns.append(column + ("" if comment is None else f" COMMENT {sql_string(comment)}"))
        properties = dict(self._properties)
        if self._primary_key:
            properties["primary-key"] = ",".join(self._primary_key)
        statement = f"CREATE TABLE {table._qualified()} ({', '.join(columns)})"
        if self._partitioned_by:
            statement += f" PARTITIONED BY ({', '.join(quote(c) for c in self._partitioned_by)})"
        if self._comment is not None:
            statement += f" COMMENT {sql_string(self._comment)}"
        if properties:
            statement += " TBLPROPERTIES (" + ", ".join(
                f"{sql_string(k)} = {sql_string(v)}" for k, v in sorted(properties.items())) + ")"
        try:
            self._spark.sql(statement).collect()
        except Exception:
            self._name_bad_type()
            raise
        return table

    def _name_bad_type(self) -> None:
        """Raises BadInputException naming the first column whose type SQL does not know, if any."""
        for name, data_type, _, _ in self._columns:
            try:
                self._spark.sql(f"SELECT CAST(NULL AS {data_type}) AS x").schema
            except Exception as e:  # noqa: BLE001 - the reason goes into the message
                reason = str(e).strip().splitlines()[0]
                raise BadInputException(f"Column '{name}' of table {self._catalog}.{self._name}: '{data_type}' "
                                        f"is not a SQL type ({reason})") from None
