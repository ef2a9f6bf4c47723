"""Command line: `python -m lamina compact --warehouse W --table db.t [--catalog-conf KEY=VALUE]...
[--partition k=v[,k2=v2]] [--full] [--order-strategy order|zorder|hilbert --order-by c1,c2] [--where CONDITION]`.
`--catalog-conf` gives the catalog's options other than the warehouse (`metastore=jdbc`, `uri=...`,
`jdbc.user=...`, `lock.enabled=true`), as `spark.sql.catalog.<name>.<key>` would.

Runs the JVM job `lamina.jobs.Compact` through the spark-submit that ships with PySpark, with the
jar inside this package. Arguments are checked here first so that a typo fails in a second, not
after a JVM start.
"""

import argparse
import os
import re
import subprocess
import sys
from typing import List, Optional

_PART = r"[A-Za-z_][A-Za-z0-9_]*"
_TABLE = re.compile(rf"^{_PART}\.{_PART}$")
_JOBS = {"compact": "lamina.jobs.Compact"}


def _table(value: str) -> str:
    if not _TABLE.match(value):
        raise argparse.ArgumentTypeError(
            f"table must be <database>.<table> (letters, digits, underscores), got {value!r}"
        )
    return value


def _partition(value: str) -> str:
    """One partition as k=v[,k2=v2]; each key at most once, keys non-empty."""
    keys = []
    for pair in value.split(","):
        key, sep, _ = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise argparse.ArgumentTypeError(
                f"partition must be key=value[,key2=value2], got {value!r}"
            )
        if key in keys:
            raise argparse.ArgumentTypeError(f"partition key {key!r} given twice in {value!r}")
        keys.append(key)
    return value


def _key_value(flag: str):
    def check(value: str) -> str:
        key, sep, _ = value.partition("=")
        if not sep or not key.strip():
            raise argparse.ArgumentTypeError(f"{flag} must be KEY=VALUE, got {value!r}")
        return value
    return check


_conf = _key_value("--conf")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m lamina", description="Lamina batch jobs.")
    jobs = parser.add_subparsers(dest="job", metavar="JOB", required=True)
    compact = jobs.add_parser(
        "compact",
        help="compact a table's data files",
        description="Compact a table (all partitions, or only those given with --partition).",
    )
    compact.add_argument("--warehouse", required=True, help="warehouse path or URI")
    compact.add_argument("--table", required=True, type=_table, help="<database>.<table>")
    compact.add_argument(
        "--catalog-conf", action="append", default=[], type=_key_value("--catalog-conf"), metavar="KEY=VALUE",
        help="a catalog option (metastore=jdbc, uri=..., jdbc.user=..., lock.enabled=true); repeat for several",
    )
    compact.add_argument(
        "--partition", action="append", default=[], type=_partition, metavar="K=V[,K2=V2]",
        help="a partition to compact; repeat for several (default: all)",
    )
    compact.add_argument("--full", action="store_true", help="rewrite everything into one sorted run")
    compact.add_argument("--order-strategy", choices=("none", "order", "zorder", "hilbert"),
                         help="append tables: rewrite the partitions sorted by --order-by")
    compact.add_argument("--order-by", metavar="C1,C2", help="the columns --order-strategy sorts by")
    compact.add_argument("--where", metavar="CONDITION",
                         help="a SQL condition on partition columns selecting the partitions (instead of --partition)")
    compact.add_argument("--master", help="Spark master (spark-submit's default when not given)")
    compact.add_argument(
        "--conf", action="append", default=[], type=_conf, metavar="KEY=VALUE",
        help="extra Spark configuration; repeat for several",
    )
    return parser


def _spark_submit() -> str:
    from pyspark.find_spark_home import _find_spark_home

    return os.path.join(_find_spark_home(), "bin", "spark-submit")


def build_command(argv: List[str]) -> List[str]:
    """The spark-submit command line for `argv` (raises SystemExit(2) on bad arguments)."""
    from lamina._config import _check_warehouse, jar_path

    parser = _parser()
    args = parser.parse_args(argv)
    try:
        warehouse = _check_warehouse(args.warehouse)
    except ValueError as e:
        parser.error(str(e))
    command = [_spark_submit(), "--class", _JOBS[args.job]]
    if args.master:
        command += ["--master", args.master]
    for conf in args.conf:
        command += ["--conf", conf]
    command.append(jar_path())
    command += ["--warehouse", warehouse, "--table", args.table]
    for conf in args.catalog_conf:
        command += ["--catalog-conf", conf]
    for partition in args.partition:
        command += ["--partition", partition]
    if args.full:
        command.append("--full")
    for flag, value in (("--order-strategy", args.order_strategy), ("--order-by", args.order_by),
                        ("--where", args.where)):
        if value is not None:
            command += [flag, value]
    return command


def main(argv: Optional[List[str]] = None) -> int:
    command = build_command(sys.argv[1:] if argv is None else argv)
    return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main())
