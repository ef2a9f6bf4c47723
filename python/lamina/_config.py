"""Session configuration: the jar on the classpath and the catalog registered under a name."""

import os
import re
from typing import Dict, Mapping, Optional, Union

_CATALOG_CLASS = "lamina.spark.LaminaCatalog"
_EXTENSIONS_CLASS = "lamina.spark.LaminaSparkSessionExtensions"
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_URI_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_METASTORES = ("filesystem", "jdbc", "hive")


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


def configure(
    builder,
    warehouse: Union[str, "os.PathLike[str]"],
    catalog: str = "lamina",
    metastore: str = "filesystem",
    uri: Optional[str] = None,
    catalog_options: Optional[Mapping[str, str]] = None,
    hadoop_conf: Optional[Mapping[str, str]] = None,
):
    """Return `builder` set up to use Lamina tables under `warehouse` through catalog `catalog`.

    `metastore` is where the catalog keeps its databases and tables: `"filesystem"` (the warehouse's
    directories) or `"jdbc"` (Paimon's JDBC catalog tables in the database `uri` names, such as
    `"jdbc:sqlite:/data/catalog.db"` or `"jdbc:postgresql://host:5432/db"`) or `"hive"` (a Hive
    metastore: `uri="thrift://host:9083"`, or no `uri` for one embedded in the session's JVM, kept in
    Derby). `catalog_options` are
    further catalog options, each set as `spark.sql.catalog.<catalog>.<key>` (for example
    `{"jdbc.user": "u", "jdbc.password": "p", "catalog-key": "prod"}` or `{"lock.enabled": "true"}`); the catalog refuses keys it
    does not know when it is first used. A catalog's storage settings are catalog options too, by
    Paimon's names: `{"s3.endpoint": "http://host:9000", "s3.access-key": "...", "s3.secret-key": "...",
    "s3.path.style.access": "true"}` (each `s3.<key>` is S3A's `fs.s3a.<key>`; see docs/storage.md).
    `hadoop_conf` are Hadoop settings for the whole session, each set as `spark.hadoop.<key>` (for
    example `{"fs.s3a.endpoint": "http://host:9000"}`), so that a notebook needs no Spark config file.
    Example::

        lamina.configure(SparkSession.builder, "/data/warehouse", metastore="jdbc",
                         uri="jdbc:sqlite:/data/catalog.db")

    Sets `spark.jars` (keeping any jars already listed), `spark.sql.catalog.<catalog>`,
    `spark.sql.catalog.<catalog>.warehouse` (and `.metastore`, `.uri` and each catalog option), and adds Lamina's session extensions to
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

    options = _catalog_options(metastore, uri, catalog_options)
    hadoop = _string_mapping("hadoop_conf", hadoop_conf)

    jar = jar_path()
    existing = [j.strip() for j in str(builder._options.get("spark.jars", "")).split(",") if j.strip()]
    if jar not in existing:
        existing.append(jar)
    extensions = [e.strip() for e in str(builder._options.get("spark.sql.extensions", "")).split(",") if e.strip()]
    if _EXTENSIONS_CLASS not in extensions:
        extensions.append(_EXTENSIONS_CLASS)
    builder = (
        builder.config("spark.jars", ",".join(existing))
        .config("spark.sql.extensions", ",".join(extensions))
        .config(f"spark.sql.catalog.{catalog}", _CATALOG_CLASS)
        .config(f"spark.sql.catalog.{catalog}.warehouse", warehouse)
    )
    for key, value in options.items():
        builder = builder.config(f"spark.sql.catalog.{catalog}.{key}", value)
    for key, value in hadoop.items():
        builder = builder.config(key if key.startswith("spark.hadoop.") else f"spark.hadoop.{key}", value)
    return builder


def _string_mapping(name, mapping) -> Dict[str, str]:
    """`mapping` (None: empty) checked to map non-empty strings to strings."""
    if mapping is None:
        return {}
    if not isinstance(mapping, Mapping):
        raise ValueError(f"{name} must be a mapping of strings, got {type(mapping).__name__}")
    for key, value in mapping.items():
        if not isinstance(key, str) or not key.strip() or not isinstance(value, str):
            raise ValueError(f"{name} must map setting names to strings, got {key!r}: {value!r}")
    return dict(mapping)


def _catalog_options(metastore, uri, catalog_options) -> Dict[str, str]:
    """The catalog options besides `warehouse`, checked for type and shape; the JVM checks the rest."""
    if not isinstance(metastore, str) or metastore not in _METASTORES:
        raise ValueError(f"metastore must be one of {', '.join(map(repr, _METASTORES))}, got {metastore!r}")
    if uri is not None and (not isinstance(uri, str) or not uri.strip()):
        raise ValueError(f"uri must be a non-empty string or None, got {uri!r}")
    if metastore == "jdbc" and uri is None:
        raise ValueError("metastore='jdbc' needs uri, for example uri='jdbc:sqlite:/data/catalog.db'")
    if metastore == "filesystem" and uri is not None:
        raise ValueError("uri is only read by metastore='jdbc' or 'hive'; the filesystem metastore has none")
    if catalog_options is None:
        catalog_options = {}
    if not isinstance(catalog_options, Mapping):
        raise ValueError(f"catalog_options must be a mapping of strings, got {type(catalog_options).__name__}")
    options = {"metastore": metastore}
    if uri is not None:
        options["uri"] = uri
    for key, value in catalog_options.items():
        if not isinstance(key, str) or not key.strip() or not isinstance(value, str):
            raise ValueError(f"catalog_options must map option names to strings, got {key!r}: {value!r}")
        if key.lower() in ("warehouse", "metastore", "uri"):
            raise ValueError(f"catalog_options must not set {key!r}: pass it as the argument of that name")
        options[key] = value
    return options


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
