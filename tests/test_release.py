"""What a release publishes: one version everywhere, a wheel whose metadata is ready for PyPI, and a
jar with Maven coordinates that `spark-submit --packages` resolves from a Maven repository."""

import re
import shutil
import subprocess
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import lamina
from _support import build_wheel

REPO = Path(__file__).resolve().parents[1]
_POM = "{http://maven.apache.org/POM/4.0.0}"


def _pom():
    root = ElementTree.parse(REPO / "packaging" / "pom.xml").getroot()
    return {k: root.find(_POM + k).text for k in ("groupId", "artifactId", "version", "packaging")}


def test_one_version_everywhere():
    sbt = re.search(r'ThisBuild / version := "([^"]+)"', (REPO / "build.sbt").read_text()).group(1)
    pyproject = re.search(r'^version = "([^"]+)"', (REPO / "python" / "pyproject.toml").read_text(), re.M).group(1)
    assert sbt == pyproject == lamina.__version__ == _pom()["version"]


def test_wheel_metadata_is_ready_for_pypi(tmp_path):
    wheel = build_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        metadata = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    headers, _, description = metadata.partition("\n\n")
    fields = [line.split(": ", 1) for line in headers.splitlines() if ": " in line]
    assert ["Name", "lamina"] in fields and ["Version", lamina.__version__] in fields
    assert ["License-Expression", "Apache-2.0"] in fields
    assert ["Requires-Dist", "pyspark<4.1,>=4.0"] in fields
    assert any(k == "Classifier" and v.startswith("Development Status") for k, v in fields)
    assert ["Description-Content-Type", "text/markdown"] in fields
    # the long description is the landing page, and the licence travels with the wheel
    assert description.strip().splitlines()[0] == (REPO / "README.md").read_text().splitlines()[0]
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "lamina/jars/lamina.jar" in names


def test_spark_submit_resolves_the_jar_by_its_coordinates(tmp_path):
    """The jar and pom laid out as a Maven repository holds them: `--packages` finds and loads them."""
    pom = _pom()
    group, artifact, version = pom["groupId"], pom["artifactId"], pom["version"]
    folder = tmp_path / "repo" / Path(*group.split(".")) / artifact / version
    folder.mkdir(parents=True)
    shutil.copy(lamina.jar_path(), folder / f"{artifact}-{version}.jar")
    shutil.copy(REPO / "packaging" / "pom.xml", folder / f"{artifact}-{version}.pom")
    script = tmp_path / "check.py"
    script.write_text(
        "import sys\n"
        "from pyspark.sql import SparkSession\n"
        "spark = (SparkSession.builder.master('local[1]')\n"
        "         .config('spark.sql.catalog.lamina', 'lamina.spark.LaminaCatalog')\n"
        "         .config('spark.sql.catalog.lamina.warehouse', sys.argv[1]).getOrCreate())\n"
        "spark.sql('CREATE NAMESPACE lamina.db')\n"
        "spark.sql(\"CREATE TABLE lamina.db.t (id INT NOT NULL) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')\")\n"
        "spark.sql('INSERT INTO lamina.db.t VALUES (1), (1), (2)')\n"
        "print('rows', spark.table('lamina.db.t').count())\n")
    from pyspark.find_spark_home import _find_spark_home

    spark_submit = Path(_find_spark_home()) / "bin" / "spark-submit"
    run = subprocess.run([str(spark_submit), "--packages", f"{group}:{artifact}:{version}",
                          "--repositories", (tmp_path / "repo").as_uri(),
                          "--conf", f"spark.jars.ivy={tmp_path / 'ivy'}", str(script), str(tmp_path / "wh")],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, "\n".join(l for l in run.stderr.splitlines() if " INFO " not in l)[-4000:]
    assert "rows 2" in run.stdout
    assert (tmp_path / "ivy" / "jars" / f"{group}_{artifact}-{version}.jar").is_file()
