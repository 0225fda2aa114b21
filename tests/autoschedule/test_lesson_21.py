"""Halide's Python tutorial lesson 21 (the autoscheduler) under webhal, as Halide's CMake runs
it: the generator file built twice from the command line (without an autoscheduler, and with
Mullapudi2016 and the tutorial's parameters) into Python extension modules, then the lesson's
run script, from a folder outside the project with only its import changed.

The lesson's files come from tests/halide_sources.py ($HALIDE_SOURCE).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests import halide_sources

LESSON = "python_bindings/tutorial/lesson_21_auto_scheduler_{}.py"
PARAMS = ["autoscheduler=Mullapudi2016", "autoscheduler.parallelism=32",
          "autoscheduler.last_level_cache_size=16777216", "autoscheduler.balance=40"]

pytestmark = pytest.mark.slow


def _extension(out: Path, name: str) -> None:
    cxx = shutil.which("c++") or pytest.skip("no C++ compiler: apt-get install g++")
    so = out / (name + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run([cxx, "-shared", "-fPIC", f"-I{sysconfig.get_paths()['include']}",
                    f"{name}.py.cpp", f"{name}.a", "-lpthread", "-o", str(so)], check=True,
                   cwd=out)


def test_lesson_21_runs(tmp_path):
    for part in ("generate", "run"):
        text = halide_sources.read(LESSON.format(part))
        text = text.replace("import halide as hl", "import webhal as hl")
        (tmp_path / f"lesson_21_{part}.py").write_text(text)
    out = tmp_path / "out"
    for name, params in (("auto_schedule_false", []), ("auto_schedule_true", PARAMS)):
        done = subprocess.run(
            [sys.executable, "lesson_21_generate.py", "-g", "auto_schedule_gen", "-o", "out",
             "-f", name, "-e", "static_library,c_header,python_extension", "target=host",
             *params], capture_output=True, text=True, cwd=tmp_path, timeout=600)
        assert done.returncode == 0, done.stderr
        _extension(out, name)
    env = dict(os.environ, PYTHONPATH=str(out))
    done = subprocess.run([sys.executable, "lesson_21_run.py"], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=900)
    assert done.returncode == 0, done.stderr
    assert "Manual schedule:" in done.stdout and "Auto schedule:" in done.stdout
    print(done.stdout)
