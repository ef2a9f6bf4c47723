"""Session configuration: the jar on the classpath and the catalog registered under a name."""

import os
import re
from typing import Union

_CATALOG_CLASS = "lamina.spark.LaminaCatalog"
_EXTENSIONS_CLASS = "lamina.spark.LaminaSparkSessionExtensions"
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_URI_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def jar_path() -> str:
    """Absolute path of the Lamina assembly jar shipped inside this package (or of the jar that the
    environment variable LAMINA_JAR names, when set).

    Raises FileNotFoundError when the package was installed without its jar (in a source checkout,
    `make jar` builds it and copies it into python/lamina/jars/).
    """
    path = os.environ.get("LAMINA_JAR") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "jars", "lamina.jar")
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"Lamina jar not found at {path}; in a source checkout run `make jar` to build it"
        )
    return path


def configure(builder, warehouse: Union[str, "os.PathLike[str]"], catalog: str = "lamina"):
    """Return `builder` set up to use Lamina tables under `warehouse` through catalog `catalog`.

    Sets `spark.jars` (keeping any jars already listed), `spark.sql.catalog.<catalog>`,
    `spark.sql.catalog.<catalog>.warehouse`, and adds Lamina's session extensions to
    `spark.sql.extensions` (keeping any listed): they refuse, during analysis, an UPDATE or MERGE
    INTO that a primary-key table's merge engine cannot honour. A local warehouse path is made absolute; a URI
    (`file:`, `hdfs:`, `s3a:`, ...) is kept as given. Call before `getOrCreate()`: the jar is only
    loaded when the session's JVM starts.
    """
    from pyspark.sql import SparkSession

    if not isinstance(builder, SparkSession.Builder):
        raise ValueError(
            f"builder must be a pyspark.sql.SparkSession.Builder (SparkSession.builder), "
            f"got {type(builder).__name__}"
        )
    warehouse = _check_warehouse(warehouse)
    if not isinstance(catalog, str) or not _IDENTIFIER.match(catalog):
        raise ValueError(
            f"catalog must be a name of letters, digits and underscores, "
            f"not starting with a digit, got {catalog!r}"
        )

    jar = jar_path()
    existing = [j.strip() for j in str(builder._options.get("spark.jars", "")).split(",") if j.strip()]
    if jar not in existing:
        existing.append(jar)
    extensions = [e.strip() for e in str(builder._options.get("spark.sql.extensions", "")).split(",") if e.strip()]
    if _EXTENSIONS_CLASS not in extensions:
        extensions.append(_EXTENSIONS_CLASS)
    return (
        builder.config("spark.jars", ",".join(existing))
        .config("spark.sql.extensions", ",".join(extensions))
        .config(f"spark.sql.catalog.{catalog}", _CATALOG_CLASS)
        .config(f"spark.sql.catalog.{catalog}.warehouse", warehouse)
    )


def _check_warehouse(warehouse) -> str:
    if isinstance(warehouse, os.PathLike):
        warehouse = os.fspath(warehouse)
    if not isinstance(warehouse, str):
        raise ValueError(f"warehouse must be a path or URI string, got {type(warehouse).__name__}")
    if not warehouse.strip():
        raise ValueError("warehouse must not be empty")
    if warehouse != warehouse.strip():
        raise ValueError(f"warehouse must not start or end with whitespace, got {warehouse!r}")
    if _URI_SCHEME.match(warehouse) and not re.match(r"^[A-Za-z]:[\\/]", warehouse):
        return warehouse
    return os.path.abspath(warehouse)
