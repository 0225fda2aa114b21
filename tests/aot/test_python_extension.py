"""compile_to's python_extension (Halide's lesson 10): the generated .py.cpp, compiled with the
object into a CPython extension module, runs the pipeline on numpy arrays and hl.Buffers, checks
scalars, and raises Halide's RuntimeError with the runtime's message on a failed check."""

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

import webhal as hl


def _cxx() -> str:
    for name in ("c++", "g++", "clang++"):
        if path := shutil.which(name):
            return path
    message = "no C++ compiler (c++, g++ or clang++) on PATH; apt-get install g++"
    if os.environ.get("WEBHAL_EXPECT_ALL", "") not in ("", "0"):
        pytest.fail(message)
    pytest.skip(message)


def _build(tmp_path, func, arguments, name, target="host", kind="object"):
    """The pipeline compiled as compile_to writes it, then as Halide's CMake builds the module."""
    lib = str(tmp_path / (name + (".o" if kind == "object" else ".a")))
    src = str(tmp_path / f"{name}.py.cpp")
    func.compile_to({getattr(hl.OutputFileType, kind): lib,
                     hl.OutputFileType.python_extension: src}, arguments, name,
                    hl.Target(target))
    so = str(tmp_path / (name + sysconfig.get_config_var("EXT_SUFFIX")))
    subprocess.run([_cxx(), "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror",
                    f"-I{sysconfig.get_paths()['include']}", src, lib, "-lpthread", "-o", so],
                   check=True, cwd=tmp_path)
    spec = importlib.util.spec_from_file_location(name, so)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules.pop(name, None)
    return module


def _brighter():
    x, y = hl.Var("x"), hl.Var("y")
    offset = hl.Param(hl.UInt(8), name="offset")
    image = hl.ImageParam(hl.UInt(8), 2, "image")
    f = hl.Func("brighter")
    f[x, y] = image[x, y] + offset
    f.vectorize(x, 16).parallel(y)
    return f, [image, offset]


@pytest.mark.parametrize("kind", ["object", "static_library"])
def test_lesson_10_as_an_extension_module(tmp_path, kind):
    f, args = _brighter()
    module = _build(tmp_path, f, args, f"pyext_{kind}", kind=kind)
    run = getattr(module, f"pyext_{kind}")
    data = (np.arange(48 * 37) % 256).astype(np.uint8).reshape(37, 48)
    out = np.zeros_like(data)
    assert run(data, 5, out) is None
    assert np.array_equal(out, (data + 5).astype(np.uint8))
    # numpy's axes reversed (x is the last axis, with stride 1); views with other row strides
    out_rows = np.zeros((19, 48), dtype=np.uint8)
    run(data[::2], 7, out_rows)
    assert np.array_equal(out_rows, (data[::2] + 7).astype(np.uint8))
    with pytest.raises(RuntimeError) as e:
        run(data.T, 7, np.zeros((48, 37), dtype=np.uint8))  # x would not be dense
    assert str(e.value) == "Halide Runtime Error: -8"
    assert e.value.__notes__[0].startswith("constraint image.stride.0 (48) == 1")
    # keywords by the arguments' names, hl.Buffers with their mins
    buf_in = hl.Buffer(data).set_min([3, 4])
    buf_out = hl.Buffer(hl.UInt(8), [20, 6]).set_min([5, 6])
    run(image=buf_in, offset=1, brighter=buf_out)
    assert np.array_equal(np.asarray(buf_out), data[2:8, 2:22] + 1)


def test_scalars_of_each_kind(tmp_path):
    x = hl.Var("x")
    params = [hl.Param(t, n) for t, n in ((hl.Int(8), "i8"), (hl.UInt(32), "u32"),
                                          (hl.Int(64), "i64"), (hl.Bool(), "flag"),
                                          (hl.Float(32), "f32"), (hl.Float(64), "f64"),
                                          (hl.Float(16), "f16"))]
    i8, u32, i64, flag, f32, f64, f16 = params
    f = hl.Func("scalars")
    f[x] = hl.f64(i8) + hl.f64(u32) + hl.f64(i64) + hl.select(flag, 1000.0, 0.0) \
        + hl.f64(f32) + f64 + hl.f64(f16) + x
    run = _build(tmp_path, f, params, "scalars").scalars
    out = np.zeros(3, dtype=np.float64)
    run(-5, 4000000000, -(1 << 40), True, 0.5, 0.25, 1.5, out)
    want = -5 + 4000000000 - (1 << 40) + 1000 + 0.5 + 0.25 + 1.5
    assert list(out) == [want, want + 1, want + 2]
    with pytest.raises(ValueError, match="argument i8: 200 does not fit in int8"):
        run(200, 0, 0, False, 0.0, 0.0, 0.0, out)
    with pytest.raises(ValueError, match="argument u32: -1 does not fit in uint32"):
        run(0, -1, 0, False, 0.0, 0.0, 0.0, out)
    with pytest.raises(TypeError, match="argument f32: expected a number, not str"):
        run(0, 0, 0, False, "x", 0.0, 0.0, out)


def test_a_failed_check_raises_the_runtime_message(tmp_path):
    f, args = _brighter()
    run = _build(tmp_path, f, args, "checked").checked
    small = np.zeros((4, 4), dtype=np.uint8)
    # str(e) as Halide's (its own tests compare it), the runtime's message as a note
    with pytest.raises(RuntimeError) as e:
        run(small, 1, np.zeros((4, 8), dtype=np.uint8))
    assert str(e.value) == "Halide Runtime Error: -4"
    assert e.value.__notes__ == ["Input buffer image is accessed at -8..7, outside 0..3 in "
                                 "dimension 0"]
    with pytest.raises(RuntimeError) as e:
        run(np.zeros((4, 4), dtype=np.float32), 1, np.zeros((4, 4), dtype=np.uint8))
    assert str(e.value) == "Halide Runtime Error: -3" and "image" in e.value.__notes__[0]
    with pytest.raises(ValueError, match="argument brighter: expected 2 dimensions, got 1"):
        run(small, 1, np.zeros(4, dtype=np.uint8))
    with pytest.raises(ValueError, match="argument brighter: expected a writable array"):
        run(small, 1, np.frombuffer(bytes(16), dtype=np.uint8).reshape(4, 4))


@pytest.mark.parametrize("target", ["wasm-32-wasmrt", "host-webgpu"])
def test_other_targets_are_refused(tmp_path, target):
    f, args = _brighter()
    with pytest.raises(hl.HalideError, match="a python_extension calls a pipeline for this "
                       f"machine's CPU; target .*{target.split('-')[-1]} is not one"):
        f.compile_to({hl.OutputFileType.python_extension: str(tmp_path / "x.py.cpp")}, args,
                     "x", hl.Target(target))
