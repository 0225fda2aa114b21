"""A generated header stands alone, as Halide 21's does: a C file that includes only it can build a
halide_buffer_t and call the pipeline, and including webhal's HalideRuntime.h before or after it
redefines nothing."""

import os
import shutil
import subprocess

import pytest

import webhal as hl
from tests.aot.pipelines import brighten_f32
from webhal import abi
from webhal.aot import INCLUDE_DIR
from webhal.toolchain import emcc

# Calls brighten (gain 1.5, clamped to [0, 1]) on a 5x3 float32 image through halide_buffer_t.
CALLER = r"""
#include <stddef.h>
#include <stdio.h>
#include <string.h>

%(layout)s

int main(void) {
    float in[15], out[15];
    for (int i = 0; i < 15; i++) in[i] = (float)i / 20.0f;
    halide_dimension_t dims[2] = {{0, 5, 1, 0}, {0, 3, 5, 0}};
    halide_buffer_t in_buf, out_buf;
    memset(&in_buf, 0, sizeof in_buf);
    in_buf.host = (uint8_t *)in;
    in_buf.type.code = halide_type_float;
    in_buf.type.bits = 32;
    in_buf.type.lanes = 1;
    in_buf.dimensions = 2;
    in_buf.dim = dims;
    out_buf = in_buf;
    out_buf.host = (uint8_t *)out;
    int err = brighten(&in_buf, 1.5f, &out_buf);
    if (err != halide_error_code_success) { printf("error %%d\n", err); return 1; }
    int bad = 0;
    for (int i = 0; i < 15; i++) {
        float want = in[i] * 1.5f;
        if (out[i] != (want > 1.0f ? 1.0f : want)) bad++;
    }
    int dirty = (out_buf.flags & halide_buffer_flag_host_dirty) != 0;
    printf("mismatches %%d host_dirty %%d\n", bad, dirty);
    return bad != 0;
}
"""


def _layout_asserts(pointer_bytes: int) -> str:
    """Static checks that the C compiler lays the structs out as abi.py says."""
    lines = [f"_Static_assert(sizeof(void *) == {pointer_bytes}, \"pointer size\");"]
    for s in abi.STRUCTS:
        name = s.name if s.name != "halide_type_t" else "struct halide_type_t"
        lines.append(f"_Static_assert(sizeof({name}) == {s.size(pointer_bytes)}, \"{s.name}\");")
        for field, offset in s.offsets(pointer_bytes).items():
            lines.append(f"_Static_assert(offsetof({name}, {field}) == {offset}, "
                         f"\"{s.name}.{field}\");")
    return "\n".join(lines)


def _c_compiler() -> str:
    for name in ("cc", "clang", "gcc"):
        if path := shutil.which(name):
            return path
    message = "no C compiler (cc, clang or gcc) on PATH; apt-get install gcc"
    if os.environ.get("WEBHAL_EXPECT_ALL", "") not in ("", "0"):
        pytest.fail(message)
    pytest.skip(message)


def _library(tmp_path, target: str) -> str:
    out, inputs = brighten_f32()
    prefix = str(tmp_path / "brighten")
    out.compile_to_static_library(prefix, inputs, "brighten", hl.Target(target))
    return prefix


def _caller(tmp_path, includes: list[str], pointer_bytes: int) -> str:
    path = tmp_path / f"caller_{'_'.join(os.path.splitext(i)[0] for i in includes)}.c"
    text = "".join(f'#include "{i}"\n' for i in includes)
    path.write_text(text + CALLER % {"layout": _layout_asserts(pointer_bytes)})
    return str(path)


def test_header_alone_compiles_links_and_runs_on_the_host(tmp_path):
    cc = _c_compiler()
    prefix = _library(tmp_path, "host")
    exe = str(tmp_path / "caller")
    # No -I for webhal's include folder: the generated header must be all the C file needs.
    subprocess.run([cc, "-std=c11", "-Wall", "-Werror", _caller(tmp_path, ["brighten.h"], 8),
                    prefix + ".a", "-lm", "-lpthread", "-o", exe], check=True, cwd=tmp_path)
    run = subprocess.run([exe], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "mismatches 0 host_dirty 1" in run.stdout, run.stdout


@pytest.mark.parametrize("includes", [["HalideRuntime.h", "brighten.h"],
                                      ["brighten.h", "HalideRuntime.h"]],
                         ids=["runtime_first", "pipeline_first"])
def test_header_with_halide_runtime_in_either_order(tmp_path, includes):
    cc = _c_compiler()
    _library(tmp_path, "host")
    subprocess.run([cc, "-std=c11", "-Wall", "-Werror", "-c", _caller(tmp_path, includes, 8),
                    f"-I{INCLUDE_DIR}", "-o", str(tmp_path / "caller.o")], check=True,
                   cwd=tmp_path)


def test_header_alone_with_emcc(tmp_path, emscripten, node):
    prefix = _library(tmp_path, "wasm-32-wasmrt")
    js = str(tmp_path / "caller.js")
    emcc(["-O1", "-Wall", "-Werror", _caller(tmp_path, ["brighten.h"], 4), prefix + ".a",
          f"-I{tmp_path}", "-o", js])
    run = subprocess.run([node.path, "--no-experimental-fetch", js], capture_output=True,
                         text=True, timeout=60)
    assert "mismatches 0 host_dirty 1" in run.stdout, run.stdout + run.stderr
