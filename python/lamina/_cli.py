"""The `lamina` command (also `python -m lamina`): table maintenance from a shell.

Each subcommand checks its arguments first (a typo fails before a JVM starts), then starts a Spark
application with the Lamina catalog configured as `lamina.configure` does, and runs one procedure
(`CALL <catalog>.sys.<procedure>(...)`) or query, printing its result rows. Tables are named as SQL names
them: `t` (database `default`), `db.t` or `catalog.db.t`, a part in backquotes when it holds a dot or
another character SQL would not take bare.
"""

import argparse
import sys
import time
from typing import Dict, List, Optional, Sequence, Tuple

from lamina._names import call_sql, quote, table_name

_EXAMPLES = """examples:
  lamina compact --warehouse /data/wh --table shop.orders --partition "day=2024-05-01"
  lamina expire-snapshots --warehouse s3://bucket/wh --table shop.orders --retain-max 20
  lamina remove-orphan-files --warehouse /data/wh --table shop.orders --dry-run
  lamina create-tag --warehouse /data/wh --table shop.orders --tag eod-2024-05-01
  lamina show-snapshots --warehouse /data/wh --table shop.orders --catalog-conf metastore=jdbc \\
      --catalog-conf uri=jdbc:postgresql://db:5432/catalog --catalog-conf jdbc.user=lamina
"""


# --- names and values as SQL writes them ---------------------------------------------------------

def split_partition(text: str) -> Dict[str, str]:
    """One partition `k=v[,k2=v2]`; a value in single or double quotes may hold commas and '='."""
    spec: Dict[str, str] = {}
    i = 0
    while i <= len(text):
        eq = text.find("=", i)
        if eq < 0:
            raise ValueError(f"a partition is key=value[,key2=value2], got {text!r}")
        key = text[i:eq].strip()
        j = eq + 1
        if j < len(text) and text[j] in "'\"":
            close = text.find(text[j], j + 1)
            if close < 0:
                raise ValueError(f"unclosed quote in partition {text!r}")
            value, j = text[j + 1:close], close + 1
            if j < len(text) and text[j] != ",":
                raise ValueError(f"unexpected {text[j]!r} after a quoted value in partition {text!r}")
        else:
            comma = text.find(",", j)
            comma = len(text) if comma < 0 else comma
            value, j = text[j:comma].strip(), comma
        if not key:
            raise ValueError(f"a partition key is empty in {text!r}")
        if key in spec:
            raise ValueError(f"partition key {key!r} given twice in {text!r}")
        spec[key] = value
        i = j + 1
        if j >= len(text):
            break
    return spec


# --- the parser ----------------------------------------------------------------------------------

def _arg_type(check, flag):
    def parse(value):
        try:
            return check(value)
        except ValueError as e:
            raise argparse.ArgumentTypeError(f"{flag}: {e}")
    return parse


def _key_value(flag: str):
    def check(value: str) -> Tuple[str, str]:
        key, sep, rest = value.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"must be KEY=VALUE, got {value!r}")
        return key.strip(), rest
    return _arg_type(check, flag)


def _positive(value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value!r}")
    return int(value)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--warehouse", required=True, help="the warehouse path or URI (file:, hdfs:, s3:)")
    p.add_argument("--table", required=True, help="table, db.table or catalog.db.table (SQL's names)")
    p.add_argument("--catalog", default="lamina", help="the catalog's name (default lamina)")
    p.add_argument("--catalog-conf", action="append", default=[], type=_key_value("--catalog-conf"),
                   metavar="KEY=VALUE", help="a catalog option: metastore=jdbc|hive, uri=..., jdbc.user=..., "
                                             "lock.enabled=true, s3.endpoint=...; repeat for several")
    p.add_argument("--master", help="Spark master (default local[*])")
    p.add_argument("--conf", action="append", default=[], type=_key_value("--conf"), metavar="KEY=VALUE",
                   help="a Spark setting; repeat for several")
    p.add_argument("--verbose", action="store_true", help="print the Java stack trace of an error")


_COMMANDS = {
    "compact": "compact a table's data files (all partitions, or those of --partition / --where)",
    "expire-snapshots": "expire old snapshots and delete the files only they use",
    "expire-changelogs": "expire the changelogs kept longer than snapshots and delete the files only they use",
    "remove-orphan-files": "delete files no snapshot, tag or branch uses",
    "expire-partitions": "drop partitions whose time value is older than --expiration-time",
    "create-tag": "tag a snapshot (the latest by default)",
    "delete-tag": "delete a tag",
    "rollback": "roll the table back to a snapshot or tag; later snapshots are deleted",
    "show-snapshots": "print the table's snapshots, newest first",
}


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="lamina", description="Lamina table maintenance.", epilog=_EXAMPLES,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = top.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(name: str, example: str) -> argparse.ArgumentParser:
        p = commands.add_parser(name, help=_COMMANDS[name], description=_COMMANDS[name] + ".",
                                epilog=f"example:\n  {example}", formatter_class=argparse.RawDescriptionHelpFormatter)
        _common(p)
        return p

    p = command("compact", 'lamina compact --warehouse /data/wh --table shop.orders --partition "day=2024-05-01" --full')
    p.add_argument("--partition", action="append", default=[], type=_arg_type(split_partition, "--partition"),
                   metavar="K=V[,K2=V2]", help="a partition to compact (quote values holding commas: "
                                               "\"region='eu,west'\"); repeat for several")
    p.add_argument("--where", metavar="CONDITION", help="a SQL condition on partition columns (instead of --partition)")
    p.add_argument("--full", action="store_true", help="merge each bucket into one sorted run")
    p.add_argument("--order-strategy", choices=("none", "order", "zorder", "hilbert"),
                   help="append tables: rewrite the partitions sorted by --order-by")
    p.add_argument("--order-by", metavar="C1,C2", help="the columns --order-strategy sorts by")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="print a line as each batch of buckets finishes (default: when stderr is a terminal)")

    for what in ("snapshots", "changelogs"):
        p = command(f"expire-{what}", f"lamina expire-{what} --warehouse /data/wh --table shop.orders --retain-max 20")
        p.add_argument("--retain-max", type=_positive, help=f"keep at most this many {what}")
        p.add_argument("--retain-min", type=_positive, help=f"keep at least this many {what}")
        p.add_argument("--older-than", metavar="TIMESTAMP", help=f"expire only {what} older than this "
                                                                "('2024-05-01 12:00:00', the session's time zone)")
        p.add_argument("--max-deletes", type=_positive, help=f"expire at most this many {what}")
    p.add_argument("--delete-all", action="store_true", help="delete every kept changelog")

    p = command("remove-orphan-files", "lamina remove-orphan-files --warehouse /data/wh --table shop.orders --dry-run")
    p.add_argument("--older-than", metavar="TIMESTAMP", help="only files older than this (default: a day ago)")
    p.add_argument("--dry-run", action="store_true", help="list the files without deleting them")

    p = command("expire-partitions", "lamina expire-partitions --warehouse /data/wh --table shop.events "
                                     "--expiration-time '30 d' --timestamp-formatter yyyy-MM-dd")
    p.add_argument("--expiration-time", required=True, metavar="DURATION", help="e.g. '30 d'")
    p.add_argument("--timestamp-formatter", metavar="PATTERN", help="how partition values spell a time")
    p.add_argument("--timestamp-pattern", metavar="PATTERN", help="how to build the time from partition columns")
    p.add_argument("--expire-strategy", choices=("values-time", "update-time"))
    p.add_argument("--max-expires", type=_positive, help="expire at most this many partitions")

    p = command("create-tag", "lamina create-tag --warehouse /data/wh --table shop.orders --tag eod --snapshot 12")
    p.add_argument("--tag", required=True)
    p.add_argument("--snapshot", type=_positive, help="the snapshot id (default: the latest)")
    p.add_argument("--time-retained", metavar="DURATION", help="expire the tag after this long, e.g. '7 d'")

    p = command("delete-tag", "lamina delete-tag --warehouse /data/wh --table shop.orders --tag eod")
    p.add_argument("--tag", required=True)

    p = command("rollback", "lamina rollback --warehouse /data/wh --table shop.orders --snapshot 12")
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--snapshot", type=_positive)
    target.add_argument("--tag")

    p = command("show-snapshots", "lamina show-snapshots --warehouse /data/wh --table shop.orders --limit 10")
    p.add_argument("--limit", type=_positive, help="the newest this many")
    return top


# --- what each subcommand runs -------------------------------------------------------------------

def statement(args, catalog: str, database: str, table: str) -> Optional[str]:
    """The SQL a subcommand runs (None for compact, which calls `lamina.compact`)."""
    def call(procedure: str, **arguments) -> str:
        return call_sql(catalog, database, table, procedure, **arguments)

    c = args.command
    if c == "compact":
        return None
    if c in ("expire-snapshots", "expire-changelogs"):
        more = {"delete_all": args.delete_all} if c == "expire-changelogs" else {}
        return call(c.replace("-", "_"), retain_max=args.retain_max, retain_min=args.retain_min,
                    older_than=args.older_than, max_deletes=args.max_deletes, **more)
    if c == "remove-orphan-files":
        return call("remove_orphan_files", older_than=args.older_than, dry_run=args.dry_run)
    if c == "expire-partitions":
        return call("expire_partitions", expiration_time=args.expiration_time,
                    timestamp_formatter=args.timestamp_formatter, timestamp_pattern=args.timestamp_pattern,
                    expire_strategy=args.expire_strategy, max_expires=args.max_expires)
    if c == "create-tag":
        return call("create_tag", tag=args.tag, snapshot_id=args.snapshot, time_retained=args.time_retained)
    if c == "delete-tag":
        return call("delete_tag", tag=args.tag)
    if c == "rollback":
        return call("rollback", snapshot=args.snapshot, tag=args.tag)
    if c == "show-snapshots":
        limit = f" LIMIT {args.limit}" if args.limit else ""
        return (f"SELECT snapshot_id, commit_kind, commit_time, total_record_count, delta_record_count "
                f"FROM {quote(catalog)}.{quote(database)}.{quote(table + '$snapshots')} "
                f"ORDER BY snapshot_id DESC{limit}")
    raise AssertionError(c)


def show_progress(args, stream=None) -> bool:
    """Whether `compact` prints progress lines: as --progress / --no-progress say, else when stderr is a terminal."""
    if args.progress is not None:
        return args.progress
    stream = sys.stderr if stream is None else stream
    return bool(getattr(stream, "isatty", lambda: False)())


def _print_rows(columns: Sequence[str], rows: Sequence[Sequence[object]], out=sys.stdout) -> None:
    cells = [list(columns)] + [["NULL" if v is None else str(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    for n, row in enumerate(cells):
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip(), file=out)
        if n == 0:
            print("  ".join("-" * w for w in widths), file=out)


def _session(args, catalog: str):
    from pyspark.sql import SparkSession

    import lamina

    builder = SparkSession.builder.appName(f"lamina {args.command} {args.table}").master(args.master or "local[*]")
    for key, value in args.conf:
        builder = builder.config(key, value)
    options = dict(args.catalog_conf)
    metastore = options.pop("metastore", "filesystem")
    uri = options.pop("uri", None)
    spark = lamina.configure(builder, warehouse=args.warehouse, catalog=catalog, metastore=metastore, uri=uri,
                             catalog_options=options).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def run(args, catalog: str, database: str, table: str) -> int:
    import lamina

    sql = statement(args, catalog, database, table)
    started = time.monotonic()
    print(f"lamina {args.command} {catalog}.{database}.{table}: starting", file=sys.stderr, flush=True)
    spark = _session(args, catalog)
    try:
        if sql is None:
            snapshot = lamina.compact(spark, f"{database}.{table}", partitions=args.partition or None,
                                      full=args.full, catalog=catalog, order_strategy=args.order_strategy,
                                      order_by=args.order_by, where=args.where, progress=show_progress(args))
            print(f"compacted {database}.{table}: " + (f"snapshot {snapshot}" if snapshot else "nothing to compact"))
        else:
            df = spark.sql(sql)
            _print_rows(df.columns, [tuple(r) for r in df.collect()])
    finally:
        spark.stop()
    print(f"lamina {args.command} {catalog}.{database}.{table}: done in {time.monotonic() - started:.1f} s",
          file=sys.stderr, flush=True)
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    p = parser()
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        from lamina._config import _check_warehouse

        _check_warehouse(args.warehouse)
        names = table_name(args.table, args.catalog, "--table")
    except ValueError as e:
        p.error(str(e))
    if args.command == "compact" and args.partition and args.where:
        p.error("give --partition or --where, not both")
    from pyspark.errors import PySparkException

    import lamina

    try:
        return run(args, *names)
    except (lamina.LaminaException, PySparkException) as e:
        if args.verbose:
            raise
        print(f"lamina {args.command}: {e}", file=sys.stderr)
        return 1
