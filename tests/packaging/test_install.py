"""An installed webhal stands alone: `pip install .` (not editable) into a fresh venv outside the
repository, then, from a directory outside it too, the installed package builds the demo's web
page with its own templates and demo sources, and an npm package of the demo's generator;
`webhal doctor`, `webhal demo blur` and `webhal build` exit 0 where only runtimes they do not
need are missing (dawn.node and puppeteer-core: no node_modules there), and every hint they
print names a command a pip user has (`npm install webgpu`), never `make`.

Offline: the wheel is built with the setuptools of the test's own environment
(--no-build-isolation), and the fresh venv borrows the test environment's dependencies through a
.pth file naming a folder of links to them, every one but webhal's own.
"""

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pytest

from webhal.runners.node import run_node_source
from webhal.testing.runtimes import missing

ROOT = Path(__file__).resolve().parents[2]
# Not part of a checkout's sources, and large or private to this machine.
NOT_COPIED = shutil.ignore_patterns(".git", ".venv", "node_modules", "build", "out", "*.egg-info",
                                    "__pycache__", ".*_cache", ".hypothesis")

BUILD_PAGE = """
import json, sys
import webhal
from webhal import demo
from webhal.glue import package_data
settings = demo.build_page(sys.argv[1], reps=3)
print(json.dumps({"webhal": webhal.__file__, "settings": settings,
                  "folders": {n: [str(f) for f in package_data.folder(n).iterdir()]
                              for n in package_data.PACKAGES}}))
"""


def _run(command, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, **kwargs)
    assert result.returncode == 0, f"{command}\n{result.stdout}\n{result.stderr}"
    return result


def _hints(output: str) -> list[str]:
    """The lines under "to fix:" of a doctor or demo report."""
    lines = output.split("to fix:", 1)[1].splitlines() if "to fix:" in output else []
    return [line.strip() for line in lines if re.match(r"  \S.*: ", line)]


def _check_hints(output: str) -> None:
    hints = _hints(output)
    assert any("dawn.node" in h and "npm install webgpu" in h for h in hints), output
    for hint in hints:
        assert "(optional, for " in hint, hint  # only runtimes these commands do not need
        assert "make" not in hint and ".venv" not in hint, hint
    assert "make setup" not in output


def _borrowed_dependencies(directory: Path) -> Path:
    """A folder of links to this environment's installed packages, leaving out webhal (its
    editable install, dist-info and .pth files), so only the wheel can provide it."""
    directory.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        name = entry.name
        if name.startswith(("webhal", "__editable__")) or name.endswith(".pth"):
            continue
        (directory / name).symlink_to(entry)
    return directory


@pytest.mark.slow
def test_wheel_builds_the_demo_page_outside_the_repository(tmp_path, llvm_wasm, emscripten):
    if int(version("setuptools").split(".")[0]) < 77:
        missing("setuptools>=77 to build the wheel offline", f"found {version('setuptools')}",
                "make setup (it is in webhal's test extra)")
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=NOT_COPIED, symlinks=True)
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
                .stdout.strip())
    (site / "borrowed_dependencies.pth").write_text(
        f"{_borrowed_dependencies(tmp_path / 'dependencies')}\n")

    # A pip user's environment: not CI's WEBHAL_EXPECT_ALL, which makes a missing runtime fail.
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "WEBHAL_EXPECT_ALL") and not k.startswith("PIP_")}
    _run([sys.executable, "-m", "pip", "--isolated", "--python", str(python), "install", "-q",
          "--no-deps", "--no-build-isolation", "--no-index", str(source)], env=env, cwd=tmp_path)
    shutil.rmtree(source)  # nothing may come from the sources any more

    work = tmp_path / "work"
    work.mkdir()
    page = work / "page"
    result = json.loads(_run([python, "-c", BUILD_PAGE, str(page)], env=env, cwd=work)
                        .stdout.strip().splitlines()[-1])
    installed = site / "webhal"
    assert Path(result["webhal"]) == installed / "__init__.py"
    assert not Path(result["webhal"]).is_relative_to(ROOT)
    for name, files in result["folders"].items():
        assert files and {Path(f).parent for f in files} == {installed / name}, name
    if (ROOT / "runtime_js" / "abi.js").is_file():
        assert (installed / "runtime_js" / "abi.js").is_file()

    settings = result["settings"]
    assert settings["module_js"] == "blur.js" and settings["target"].endswith("wasm_simd128")
    html = (page / "index.html").read_text()
    assert 'src="blur.js"' in html and "create_blur" in html
    assert "create_blur" in (page / "blur.js").read_text()
    assert (page / "blur.wasm").read_bytes()[:4] == b"\0asm"
    assert "webhal_run" in (page / "blur.run.c").read_text()
    assert (page / "blur.a").read_bytes()[:8] == b"!<arch>\n"
    from PIL import Image
    with Image.open(ROOT / "demos" / "images" / "camera.png") as image:
        pixels = np.asarray(image.convert("L"))
    assert (page / "blur.input.bin").read_bytes() == pixels.tobytes()
    assert (settings["in_w"], settings["in_h"]) == (pixels.shape[1], pixels.shape[0])

    help_text = _run([venv / "bin" / "webhal", "--help"], env=env, cwd=work).stdout
    assert "demo" in help_text

    doctor = _run([venv / "bin" / "webhal", "doctor"], env=env, cwd=work)
    _check_hints(doctor.stdout + doctor.stderr)
    assert "no  Node + Dawn: run bundles with WebGPU under Node (dawn.node) (optional)" in \
        doctor.stdout
    demo = _run([venv / "bin" / "webhal", "demo", "blur", "--out", "demos"],
                env={**env, "WEBHAL_CACHE_DIR": str(tmp_path / "cache")}, cwd=work)
    _check_hints(demo.stdout + demo.stderr)  # exit status 0: every variant matched
    assert "cannot run bundles with WebGPU under Node (dawn.node) (not needed for the demos)" in \
        demo.stdout
    assert "Box blur" in demo.stdout
    assert stat.S_IMODE((work / "demos" / "blur" / "pkg").stat().st_mode) == 0o755

    # An npm package of the demo's generator, from the installed package data alone (the
    # templates, runtime_js/ and its emcc library), with a WebGPU variant.
    package = work / "blur-package"
    built = _run([venv / "bin" / "webhal", "build", str(installed / "demos" / "blur" / "blur.py"),
                  "-g", "blur", "-o", str(package),
                  "--target", "wasm-32-wasmrt-wasm_simd128-webgpu,wasm-32-wasmrt"],
                 env={**env, "WEBHAL_CACHE_DIR": str(tmp_path / "cache")}, cwd=work)
    assert f"built blur in {package}" in built.stdout
    assert "make" not in built.stdout + built.stderr
    assert stat.S_IMODE(package.stat().st_mode) == 0o755
    assert sorted(p.name for p in (package / "runtime").iterdir()) == \
        ["abi.js", "buffers.js", "gpu_images.js", "image_data.js", "pipeline.js", "profile.js",
         "webgpu.js"]
    assert (package / "webgpu" / "blur.wgsl").is_file()
    index = json.dumps((package / "index.js").as_uri())
    script = (f"import {{ create }} from {index};\n"
              "const p = await create({ variant: 'scalar' });\n"
              "const out = await p.run({ input: { data: new Uint8Array(18 * 10).fill(9), "
              "shape: [18, 10] } }, { shape: [16, 8] });\n"
              "console.log(JSON.stringify([p.target, out.data[0]]));\n")
    assert json.loads(run_node_source(script).stdout) == ["wasm-32-wasmrt", 9]
