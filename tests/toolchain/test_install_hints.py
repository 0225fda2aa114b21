"""Install hints fit how webhal was installed: `make setup` in a checkout of the repository,
the command for each piece (pip, npm, apt-get) for a wheel from pip, never `make`."""

import json
import subprocess
import sys
from pathlib import Path

from webhal.toolchain.install import checkout, fix

ROOT = Path(__file__).resolve().parents[2]

# Every hint constant of webhal's finders and runtimes, as a wheel's webhal makes them: with
# the checkout hidden, the modules that build their hints at import run again.
HINTS_OF_A_WHEEL = """
import importlib, json
import webhal.toolchain.install as install
from webhal.toolchain import emscripten, hosts, spirv, wasm, webgpu
from webhal.runtime import vulkan
install.checkout = lambda: None
modules = [importlib.reload(m) for m in (emscripten, hosts, spirv, wasm, webgpu, vulkan)]
from webhal.toolchain.install import pip_install
hints = {f"{m.__name__}.{k}": v for m in modules
         for k, v in vars(m).items() if k.endswith("HINT") and isinstance(v, str)}
hints["pip_install"] = pip_install("wgpu")
print(json.dumps(hints))
"""


def test_the_checkout_is_found_from_the_sources():
    assert checkout() == ROOT


def test_either_form():
    assert fix("npm install webgpu", "npm ci", either="set X", root=None) == \
        "npm install webgpu, or set X"
    hint = fix("npm install webgpu", "npm ci", either="set X", root=ROOT)
    assert hint.startswith("run `make setup`") and "(it runs npm ci)" in hint
    assert hint.endswith(", or set X")


def test_a_wheels_hints_name_commands_that_work_without_the_repository():
    done = subprocess.run([sys.executable, "-c", HINTS_OF_A_WHEEL], capture_output=True,
                          text=True, timeout=120, cwd="/")
    assert done.returncode == 0, done.stderr
    hints = json.loads(done.stdout)
    assert len(hints) >= 10
    for name, hint in hints.items():
        assert "make" not in hint and ".venv" not in hint, (name, hint)
    assert hints["webhal.toolchain.webgpu.DAWN_NODE_HINT"].startswith("npm install webgpu")
    assert "python -m playwright install chromium" in hints["webhal.toolchain.hosts.CHROMIUM_HINT"]
    assert "apt-get install chromium" in hints["webhal.toolchain.hosts.CHROMIUM_HINT"]
    assert hints["webhal.toolchain.emscripten.INSTALL_HINT"].startswith(
        "apt-get install emscripten")
    assert hints["pip_install"].startswith("pip install wgpu")
