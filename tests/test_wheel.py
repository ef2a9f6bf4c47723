"""The Python package as a user installs it: a wheel with the jar inside, installed with PySpark into a
fresh virtual environment, runs the quickstart with nothing else on the machine's Python path."""

import subprocess
import venv
from pathlib import Path

from _support import build_wheel

REPO = Path(__file__).resolve().parents[1]


def test_wheel_installs_into_a_fresh_environment_and_runs_the_quickstart(tmp_path):
    import lamina

    wheel = build_wheel(tmp_path / "dist")
    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "pyspark==4.0.*", str(wheel)],
                   check=True, capture_output=True, text=True)
    # the installed package carries the jar the tests use, and nothing comes from the repository
    shown = subprocess.run([str(python), "-c", "import lamina, os; print(lamina.jar_path()); print(lamina.__file__)"],
                           check=True, capture_output=True, text=True, cwd=tmp_path).stdout.split()
    assert shown[0].startswith(str(env_dir)) and shown[1].startswith(str(env_dir))
    assert Path(shown[0]).stat().st_size == Path(lamina.jar_path()).stat().st_size
    run = subprocess.run([str(python), str(REPO / "examples" / "quickstart.py"), str(tmp_path / "warehouse")],
                         capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Lamina warehouse:" in run.stdout
