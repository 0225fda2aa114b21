"""The link glue of npm package variants (webhal.glue.emcc_link): emcc's response file, the
--pre-js and the --js-library, rendered for Debian's Emscripten 3.1.6 and for 4.0.10 and
compared with golden files (WEBHAL_UPDATE_GOLDEN=1 rewrites them); the ASYNCIFY call path.
Real links with this glue: test_npm_package.py."""

from __future__ import annotations

import os
import pathlib
import shlex

import llvmlite.binding as binding
import pytest

import webhal as hl
from webhal.errors import CompileError, ToolchainError
from webhal.glue.emcc_link import link_glue, suspend_path
from webhal.toolchain import capabilities_for

GOLDEN = pathlib.Path(__file__).parent / "golden" / "glue"
UPDATE = os.environ.get("WEBHAL_UPDATE_GOLDEN", "") not in ("", "0")
CASES = {
    "3.1.6-simd": ((3, 1, 6), "wasm-32-wasmrt-wasm_simd128", None),
    "3.1.6-webgpu-c": ((3, 1, 6), "wasm-32-wasmrt-wasm_simd128-webgpu", None),
    "4.0.10-webgpu-c": ((4, 0, 10), "wasm-32-wasmrt-wasm_simd128-webgpu", None),
    "3.1.6-threads": ((3, 1, 6), "wasm-32-wasmrt-wasm_simd128-wasm_threads", None),
    "3.1.6-webgpu": ((3, 1, 6), "wasm-32-wasmrt-wasm_simd128-webgpu", None),
    "3.1.6-webgpu-asyncify": ((3, 1, 6), "wasm-32-wasmrt-wasm_simd128-webgpu", "asyncify"),
    "4.0.10-threads": ((4, 0, 10), "wasm-32-wasmrt-wasm_simd128-wasm_threads", None),
    "4.0.10-webgpu-jspi": ((4, 0, 10), "wasm-32-wasmrt-wasm_simd128-webgpu", "jspi"),
}


def _glue(case):
    """The glue of a case; "-c" cases link a C source of the user's, with one export."""
    version, target, suspend = CASES[case]
    c = dict(c_sources=("mine.c",), c_exports=("fill",)) if case.endswith("-c") else {}
    return link_glue(hl.Target(target), capabilities_for(version), "blur", suspend=suspend,
                     suspend_path=("blur",) if suspend else (), **c)


@pytest.mark.parametrize("case", sorted(CASES))
def test_rendered_glue_matches_golden(case):
    glue = _glue(case)
    folder = GOLDEN / case
    if UPDATE:
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        for name, text in glue.files.items():
            (folder / name).write_text(text)
    assert folder.is_dir(), f"no golden files for {case}; run with WEBHAL_UPDATE_GOLDEN=1"
    assert sorted(glue.files) == sorted(p.name for p in folder.iterdir())
    for name, text in glue.files.items():
        assert text == (folder / name).read_text(), \
            f"{case}/{name} changed; WEBHAL_UPDATE_GOLDEN=1 updates it"


def test_what_differs_between_versions_and_variants():
    def args(case):
        glue = _glue(case)
        return shlex.split(glue.files["link.rsp"]), glue
    threads, glue = args("3.1.6-threads")
    assert "-pthread" in threads and "-sENVIRONMENT=web,worker,node" in threads
    assert "-sALLOW_MEMORY_GROWTH=1" in threads  # runtime_js refreshes its views
    # Emscripten's classic worker script (Node), and webhal's ES-module copy (browsers).
    assert glue.outputs == ("blur.mjs", "blur.wasm", "blur.worker.js", "blur.worker.mjs")
    assert "webhalRequire" in glue.files["webhal_pre.js"]
    assert "Module['webhalWorker']" in glue.files["webhal_pre.js"]
    # No process-wide listeners; the pool's size and the thread count come at create().
    assert {"-sNODEJS_CATCH_EXIT=0", "-sNODEJS_CATCH_REJECTION=0",
            "-sPTHREAD_POOL_SIZE=Module.webhalPoolSize"} <= set(threads)
    assert "-sEXPORTED_FUNCTIONS=_blur,_malloc,_free,_halide_set_num_threads" in threads
    assert args("4.0.10-threads")[1].outputs == ("blur.mjs", "blur.wasm")  # no worker file
    simd, glue = args("3.1.6-simd")
    assert "-sENVIRONMENT=web" in simd and "-pthread" not in simd
    assert "--js-library" not in simd and "webhalRequire" not in glue.files["webhal_pre.js"]
    asyncify, glue = args("3.1.6-webgpu-asyncify")
    assert {"-sASYNCIFY", "-sASYNCIFY_IMPORTS=webhal_gpu_copy_to_host",
            "-sASYNCIFY_ONLY=blur"} <= set(asyncify)
    assert "Asyncify.handleAsync" in glue.files["library_webhal_gpu.js"]
    no_wait, glue = args("3.1.6-webgpu")
    assert not any("ASYNCIFY" in a for a in no_wait)
    assert "Asyncify" not in glue.files["library_webhal_gpu.js"]
    jspi, _ = args("4.0.10-webgpu-jspi")
    assert {"-sJSPI", "-sJSPI_EXPORTS=blur"} <= set(jspi)
    assert not any("WEBGPU" in a or "webgpu" in a for a in no_wait)  # no C: no bindings
    old, glue = args("3.1.6-webgpu-c")
    assert {"-sUSE_WEBGPU=1", "-DWEBHAL_WEBGPU=1", "mine.c"} <= set(old)
    assert "-sEXPORTED_FUNCTIONS=_blur,_malloc,_free,_fill" in old
    assert "preinitializedWebGPUDevice" in glue.files["webhal_pre.js"]
    assert "dispatchWorkgroups" in glue.files["webhal_pre.js"]  # 3.1.6's stale names
    new, glue = args("4.0.10-webgpu-c")
    assert "--use-port=emdawnwebgpu" in new and "-sUSE_WEBGPU=1" not in new
    assert "dispatchWorkgroups" not in glue.files["webhal_pre.js"]


def test_a_c_export_must_be_a_c_name():
    with pytest.raises(CompileError, match="cannot export C function 'no-dash'"):
        link_glue(hl.Target("wasm-32-wasmrt"), capabilities_for((3, 1, 6)), "f",
                  c_sources=("a.c",), c_exports=("no-dash",))


def test_jspi_needs_an_emscripten_that_has_it():
    with pytest.raises(ToolchainError, match="needs jspi, which Emscripten 3.1.6 does not"):
        link_glue(hl.Target("wasm-32-wasmrt-webgpu"), capabilities_for((3, 1, 6)), "f",
                  suspend="jspi")


def test_names_reaching_the_response_file_are_quoted():
    glue = link_glue(hl.Target("wasm-32-wasmrt"), capabilities_for((3, 1, 6)), "my_f")
    assert shlex.split(glue.files["link.rsp"])[-3:] == ["my_f.a", "-o", "my_f.mjs"]


_IR = """
target triple = "wasm32-unknown-unknown"
declare i32 @webhal_gpu_copy_to_host(i8*, i32)
define i32 @helper() {
  %r = call i32 @webhal_gpu_copy_to_host(i8* null, i32 0)
  ret i32 %r
}
define i32 @task(i8* %c) {
  %r = call i32 @webhal_gpu_copy_to_host(i8* null, i32 1)
  ret i32 %r
}
define i32 @par(i32 (i8*)* %f) {
  %r = call i32 %f(i8* null)
  ret i32 %r
}
define i32 @entry() {
  %a = call i32 @helper()
  ret i32 %a
}
define i32 @threaded() {
  %a = call i32 @par(i32 (i8*)* @task)
  ret i32 %a
}
define i32 @plain() {
  ret i32 0
}
"""


def test_the_asyncify_path_is_the_direct_calls_from_the_entry_to_the_readback():
    whole = binding.parse_assembly(_IR)
    direct = _IR.split("define i32 @task")[0] + _IR[_IR.index("define i32 @entry"):
                                                    _IR.index("define i32 @threaded")]
    assert suspend_path(binding.parse_assembly(direct), "entry") == ("entry", "helper")
    no_readback = _IR.split("declare")[0] + "define i32 @entry() {\n  ret i32 0\n}\n"
    assert suspend_path(binding.parse_assembly(no_readback), "entry") == ()
    with pytest.raises(CompileError, match="readback in task is not on a direct call path"):
        suspend_path(whole, "threaded")
