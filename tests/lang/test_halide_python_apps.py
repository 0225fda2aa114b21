"""Halide's own Python apps and generator tests (python_bindings/apps, test/generators and the
correctness tests that use them), read from a Halide checkout and run with only the import
changed (`import halide as hl` -> `import webhal as hl`, `halide.imageio` -> `webhal.imageio`),
beside the same files run by PyPI halide:

- each app generator and generator test compiled to a Callable by both, on the same inputs,
  outputs compared (smaller pyramids where webhal's compile time is still long);
- pystub.py's tests of SimplePy and ComplexPy (generators called as stages);
- the generator command line with python_extension, as Halide's CMake builds the modules, then
  Halide's addconstant_test.py and bit_test.py on webhal's modules, and blur_app.py and
  identity_app.py as scripts (blur's output picture compared with Halide's).

The Halide sources come from tests/halide_sources.py ($HALIDE_SOURCE).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import sysconfig
import types
from pathlib import Path

import numpy as np
import pytest

import webhal
from tests import halide_sources
from tests.halide_peer import require

halide, = require("halide")

pytestmark = pytest.mark.halide

FILES = [f"python_bindings/apps/{n}" for n in (
    "blur_app.py", "blur_generator.py", "identity_app.py", "identity_generator.py",
    "bilateral_grid_app.py", "bilateral_grid_generator.py", "interpolate_app.py",
    "interpolate_generator.py", "local_laplacian_app.py", "local_laplacian_generator.py")] + \
    [f"python_bindings/test/generators/{n}_generator.py"
     for n in ("addconstantpy", "bitpy", "complexpy", "simplepy")] + \
    [f"python_bindings/test/correctness/{n}.py"
     for n in ("pystub", "addconstant_test", "bit_test")]
LIBS = {"halide": halide, "webhal": webhal}
# C++ generators' modules that Halide's tests import beside the Python ones; never called here.
CPP_MODULES = ("addconstantcpp", "addconstantcpp_with_offset_42",
               "addconstantcpp_with_negative_offset", "bitcpp", "simplecpp_pystub",
               "complexcpp_pystub")
# Halide's CMake gives complexpy these (GENPARAMS_complexpy).
COMPLEX_PARAMS = {"simple_input.type": "uint8", "tuple_output.type": "float32,float32",
                  "untyped_buffer_input.type": "uint8", "untyped_buffer_output.type": "uint8",
                  "untyped_buffer_output.dim": "3"}


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> Path:
    """<tmp>/halide and <tmp>/webhal: the files, the second with only the import changed."""
    halide_sources.require()
    root = tmp_path_factory.mktemp("halide_apps")
    for lib in LIBS:
        (root / lib).mkdir()
    for path in FILES:
        text = halide_sources.read(path)
        name = os.path.basename(path)
        (root / "halide" / name).write_text(text)
        changed = text.replace("import halide as hl", "import webhal as hl") \
            .replace("import halide.imageio", "import webhal.imageio") \
            .replace("halide.imageio.", "webhal.imageio.")
        (root / "webhal" / name).write_text(changed)
    return root


_loaded: dict[tuple[str, str], types.ModuleType] = {}


def _module(sources: Path, lib: str, stem: str) -> types.ModuleType:
    """A file of the copies imported once per library (Halide refuses to register a
    generator name twice in a process)."""
    key = (lib, stem)
    if key not in _loaded:
        spec = importlib.util.spec_from_file_location(f"apps_{lib}_{stem}",
                                                      sources / lib / f"{stem}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _loaded[key] = module
    return _loaded[key]


def _generator(module, hl):
    return next(v for v in vars(module).values() if isinstance(v, type) and
                issubclass(v, hl.Generator) and v is not hl.Generator)


def _target(hl):
    return hl.get_jit_target_from_environment() if hl is halide else hl.Target("host")


def _u(rng, shape, dtype, top):
    return (rng.random(shape) * top).astype(dtype)


CUBE = (3, 32, 32)
# name: (file stem, GeneratorParams, inputs from a generator of random numbers, outputs)
CASES = {
    "identity": ("identity_generator", {}, lambda r: [], [((50,), np.int32)]),
    "blur": ("blur_generator", {}, lambda r: [_u(r, (48, 80), np.uint16, 256)],
             [((48, 80), np.uint16)]),
    "bilateral_grid": ("bilateral_grid_generator", {},
                       lambda r: [_u(r, (64, 64), np.float32, 1), 0.1],
                       [((64, 64), np.float32)]),
    # Halide's default depth, 10 levels (seconds to compile since issue 31's work)
    "interpolate": ("interpolate_generator", {"levels": "10"},
                    lambda r: [_u(r, (4, 64, 64), np.float32, 1)], [((3, 64, 64), np.float32)]),
    # Halide's CPU schedule needs 5 levels or more (its default is 8)
    "local_laplacian": ("local_laplacian_generator", {"pyramid_levels": "5"},
                        lambda r: [_u(r, (3, 64, 64), np.uint16, 65536), 8, 1.0, 1.0],
                        [((3, 64, 64), np.uint16)]),
    "bitpy": ("bitpy_generator", {}, lambda r: [_u(r, (8,), bool, 2), True], [((8,), bool)]),
    "simplepy": ("simplepy_generator", {"offset": "3"},
                 lambda r: [_u(r, (8, 8), np.uint8, 256), 3.5], [((8, 8), np.float32)]),
    "complexpy": ("complexpy_generator", COMPLEX_PARAMS,
                  lambda r: [_u(r, CUBE, np.uint8, 256), _u(r, CUBE, np.uint8, 256),
                             _u(r, CUBE, np.uint8, 256), 1.25, 33],
                  [(CUBE, np.float32)] * 4 + [(CUBE, np.uint8), ((1, 4, 4), np.uint8),
                                              ((), np.float32), ((32, 32), np.float64)]),
}
AUTOSCHEDULERS = ("Adams2019", "Li2018", "Mullapudi2016")
SLOW = {"bilateral_grid", "interpolate", "local_laplacian", "complexpy"}
# Integer outputs of float arithmetic, where Halide's fused multiply-adds and reassociation put
# a few values on the other side of a rounding step (0.6% of the local Laplacian's, by 1).
INT_TOLERANCE = {"local_laplacian": 1}


@pytest.mark.parametrize("case", [pytest.param(c, marks=[pytest.mark.slow] if c in SLOW else [])
                                  for c in CASES])
def test_generator_as_halide_compiles_it(sources, case):
    stem, params, inputs, outputs = CASES[case]
    results = {}
    for lib, hl in LIBS.items():
        cls = _generator(_module(sources, lib, stem), hl)
        with hl.GeneratorContext(_target(hl)):
            call = cls(generator_params=params).compile_to_callable()
        outs = [np.zeros(shape, dtype) for shape, dtype in outputs]
        call(*inputs(np.random.default_rng(7)), *outs)
        results[lib] = outs
    for ours, theirs in zip(results["webhal"], results["halide"]):
        assert ours.dtype == theirs.dtype
        if ours.dtype.kind == "f":  # Halide fuses and reassociates a little differently
            np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=1e-6)
        elif case in INT_TOLERANCE:
            np.testing.assert_allclose(ours.astype(np.int64), theirs.astype(np.int64), rtol=0,
                                       atol=INT_TOLERANCE[case])
            assert np.mean(ours != theirs) < 0.02, "more than 2% of the values differ"
        else:
            np.testing.assert_array_equal(ours, theirs)


@pytest.mark.slow
@pytest.mark.parametrize("lib", list(LIBS))
def test_pystub(sources, lib, monkeypatch):
    """pystub.py's own checks of SimplePy and ComplexPy, called as generator stubs."""
    hl = LIBS[lib]
    for name in CPP_MODULES:
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    for stem in ("simplepy_generator", "complexpy_generator"):
        monkeypatch.setitem(sys.modules, stem, _module(sources, lib, stem))
    pystub = _module(sources, lib, "pystub")
    pystub.target = _target(hl)
    with hl.GeneratorContext(pystub.target):
        pystub.test_simple(pystub.SimplePy)
        pystub.test_complex(pystub.ComplexPy)
        pystub.test_complex(pystub.ComplexPy, extra_input_name="foo_input")


def _extension(sources: Path, lib: str, stem: str, name: str, out: Path) -> None:
    """As Halide's CMake: the generator command line writes <name>.a, .h and .py.cpp, and
    the C++ compiler makes the module <name><EXT_SUFFIX>. An alias named after one of
    Halide's autoschedulers (bilateral_grid_Adams2019) gets that autoscheduler's plugin in
    Halide (-p); webhal takes the name as one of its own autoscheduler's."""
    out.mkdir(exist_ok=True)
    plugin = []
    scheduler = next((a for a in AUTOSCHEDULERS if name.endswith("_" + a)), None)
    if lib == "halide" and scheduler:
        from benchmarks.autoschedule import halide_plugin
        plugin = ["-p", halide_plugin(scheduler)]
    done = subprocess.run([sys.executable, str(sources / lib / f"{stem}.py"), "-g", name,
                           "-o", str(out), "-e", "static_library,c_header,python_extension",
                           *plugin, "target=host"], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    include = [f"-I{sysconfig.get_paths()['include']}"]
    if lib == "halide":
        include.append(f"-I{Path(halide.__file__).parent / 'include'}")
    subprocess.run(["c++", "-shared", "-fPIC", "-std=c++17", *include, f"{name}.py.cpp",
                    f"{name}.a", "-lpthread", "-ldl", "-o",
                    name + sysconfig.get_config_var("EXT_SUFFIX")],
                   check=True, cwd=out, timeout=600)


@pytest.mark.slow
def test_halides_generator_tests_on_webhals_extension_modules(sources, tmp_path):
    """addconstant_test.py (three aliases of one generator, every scalar type, its
    requirements' exact errors) and bit_test.py, as Halide's CMake runs them, on modules
    built by webhal's generator command line."""
    out = tmp_path / "modules"
    for name in ("addconstantpy", "addconstantpy_with_offset_42",
                 "addconstantpy_with_negative_offset"):
        _extension(sources, "webhal", "addconstantpy_generator", name, out)
    _extension(sources, "webhal", "bitpy_generator", "bitpy", out)
    script = (
        "import sys, types\n"
        f"for n in {CPP_MODULES!r}:\n"
        "    sys.modules[n] = m = types.ModuleType(n); setattr(m, n, None)\n"
        "import addconstant_test as a, bit_test as b\n"
        "a.test(a.addconstantpy, 0)\n"
        "a.test(a.addconstantpy_with_offset_42, 42)\n"
        "a.test(a.addconstantpy_with_negative_offset, -1)\n"
        "b.test(b.bitpy)\n"
        "print('passed')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(out), str(sources / "webhal")])}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0 and "passed" in done.stdout, done.stderr


@pytest.mark.slow
def test_the_app_scripts_as_halide_runs_them(sources, tmp_path):
    """identity_app.py, and blur_app.py on the cameraman picture, whose output must be
    Halide's, pixel for pixel."""
    picture = Path(__file__).resolve().parents[2] / "demos" / "images" / "camera.png"
    written = {}
    for lib in LIBS:
        out = tmp_path / lib
        _extension(sources, lib, "identity_generator", "identity", out)
        _extension(sources, lib, "blur_generator", "blur", out)
        env = {**os.environ, "PYTHONPATH": str(out)}
        done = subprocess.run([sys.executable, str(sources / lib / "identity_app.py")],
                              capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0 and "Success!" in done.stdout, done.stderr
        written[lib] = tmp_path / f"blurred_{lib}.png"
        done = subprocess.run([sys.executable, str(sources / lib / "blur_app.py"),
                               str(picture), str(written[lib])],
                              capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0 and "Success!" in done.stdout, done.stderr
    np.testing.assert_array_equal(webhal.imageio.imread(str(written["webhal"])),
                                  webhal.imageio.imread(str(written["halide"])))


# The generators python_bindings/apps/CMakeLists.txt builds per app (the aliases that name an
# autoscheduler, bilateral_grid_Li2018 among them although the app leaves it out), and the
# app's arguments there; Halide's rgba.png stands here as the astronaut with an opaque alpha.
APPS = {
    "bilateral_grid": (["bilateral_grid", "bilateral_grid_Adams2019", "bilateral_grid_Li2018",
                        "bilateral_grid_Mullapudi2016"], ["gray.png", "0.1"]),
    "interpolate": (["interpolate", "interpolate_Mullapudi2016"], ["rgba.png"]),
    "local_laplacian": (["local_laplacian", "local_laplacian_Mullapudi2016"],
                        ["rgba.png", "8", "1", "1"]),
}


def _pictures(folder: Path) -> None:
    images = Path(__file__).resolve().parents[2] / "demos" / "images"
    webhal.imageio.imwrite(str(folder / "gray.png"),
                           webhal.imageio.imread(str(images / "camera.png")))
    rgb = webhal.imageio.imread(str(images / "astronaut.png"))
    opaque = np.full((1, *rgb.shape[1:]), 255, np.uint8)
    webhal.imageio.imwrite(str(folder / "rgba.png"), np.concatenate([rgb, opaque]))


@pytest.mark.slow
@pytest.mark.parametrize("app", list(APPS))
def test_the_autoscheduled_apps_as_halides_cmake_builds_them(sources, tmp_path, app):
    """bilateral_grid_app.py, interpolate_app.py and local_laplacian_app.py run their manual
    schedule and then the generator's aliases autoscheduled (autoscheduler=Mullapudi2016, ...;
    webhal's autoscheduler under Halide's names, at the sizes the generators estimate), each
    module built by the generator command line; the picture each writes (the last variant's:
    Mullapudi2016) is Halide's, as its Mullapudi2016 schedules it, within a step of rounding."""
    names, args = APPS[app]
    _pictures(tmp_path)
    written = {}
    for lib in LIBS:
        out = tmp_path / lib
        for name in names if lib == "webhal" else [n for n in names if "Li2018" not in n]:
            _extension(sources, lib, f"{app}_generator", name, out)
        written[lib] = tmp_path / f"{app}_{lib}.png"
        done = subprocess.run([sys.executable, str(sources / lib / f"{app}_app.py"),
                               *[str(tmp_path / a) if a.endswith(".png") else a for a in args],
                               str(written[lib])], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(out)}, timeout=600)
        assert done.returncode == 0 and "Success!" in done.stdout, done.stdout + done.stderr
        assert done.stdout.count("time:") == len([n for n in names if "Li2018" not in n])
    ours, theirs = (webhal.imageio.imread(str(written[lib])).astype(int) for lib in LIBS)
    assert ours.shape == theirs.shape
    assert np.abs(ours - theirs).max() <= 1
    assert np.mean(ours != theirs) < 0.02, "more than 2% of the values differ"
