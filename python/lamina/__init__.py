"""Lamina: LSM primary-key lakehouse tables native to Apache Spark.

Tables are written in Apache Paimon's on-disk format. This package puts the Lamina jar on a
SparkSession's classpath, registers the catalog, and turns Lamina's Java errors into Python
exceptions of the same names::

    from pyspark.sql import SparkSession
    import lamina

    spark = lamina.configure(SparkSession.builder, warehouse="/data/warehouse").getOrCreate()
    spark.sql("CREATE NAMESPACE lamina.db")

`lamina.LaminaTable` is a table from Python (read, history, DELETE/UPDATE/MERGE, options, compaction).
"""

from lamina._config import configure, jar_path
from lamina._procedures import compact
from lamina.table import COMMIT_METRICS, LaminaMergeBuilder, LaminaTable, LaminaTableBuilder
from lamina.errors import (
    AlreadyExistsException,
    BadInputException,
    CommitConflictException,
    CommitStateUnknownException,
    CorruptFileException,
    LaminaException,
    NotFoundException,
    PostCommitFailureException,
    StorageException,
)

__version__ = "0.1.0"

__all__ = [
    "configure",
    "jar_path",
    "compact",
    "LaminaTable",
    "LaminaMergeBuilder",
    "LaminaTableBuilder",
    "COMMIT_METRICS",
    "LaminaException",
    "BadInputException",
    "NotFoundException",
    "AlreadyExistsException",
    "CorruptFileException",
    "CommitConflictException",
    "CommitStateUnknownException",
    "PostCommitFailureException",
    "StorageException",
]
