"""webhal.toolchain.emcc_flags: the target picks what is needed, the Emscripten version's
capability table how it is spelled. No emcc needed: each test names the version it links with.
(Real links with these flags: test_web_page.py, tests/aot/test_c_harness.py.)"""

import pytest

import webhal as hl
from webhal.errors import ToolchainError
from webhal.toolchain import JsModule, capabilities_for, emcc_flags

DEBIAN = capabilities_for((3, 1, 6))
WITH_JSPI = capabilities_for((3, 1, 60))
NO_USE_WEBGPU = capabilities_for((4, 0, 20))


def flags(target: str, caps=DEBIAN, **options) -> list[str]:
    return emcc_flags(hl.Target(target), caps, **options)


def test_features_choose_code_flags():
    assert flags("wasm-32-wasmrt") == ["-O3", "-sALLOW_MEMORY_GROWTH=1"]
    assert "-msimd128" in flags("wasm-32-wasmrt-wasm_simd128")
    assert "-mcpu=mvp" in flags("wasm-32-wasmrt-wasm_mvponly")
    assert flags("wasm-32-wasmrt", optimize=2)[0] == "-O2"


def test_threads_start_workers_with_fixed_memory():
    program = flags("wasm-32-wasmrt-wasm_simd128-wasm_threads", environment=["web", "node"],
                    thread_pool_size=3, initial_memory=1 << 28)
    assert program == ["-O3", "-sENVIRONMENT=web,node,worker", "-msimd128", "-pthread",
                       "-sPTHREAD_POOL_SIZE=3", "-sEXIT_RUNTIME=1", "-sINITIAL_MEMORY=268435456"]
    module = flags("wasm-32-wasmrt-wasm_threads", module=JsModule("create"))
    assert "-sEXIT_RUNTIME=1" not in module and "-sALLOW_MEMORY_GROWTH=1" not in module


def test_js_module_exports():
    out = flags("wasm-32-wasmrt", environment=["web"],
                module=JsModule("create_f", ("run", "malloc"), ("HEAPU8",)))
    assert out == ["-O3", "-sENVIRONMENT=web", "-sMODULARIZE=1", "-sEXPORT_NAME=create_f",
                   "-sEXPORTED_FUNCTIONS=_run,_malloc", "-sEXPORTED_RUNTIME_METHODS=HEAPU8",
                   "-sALLOW_MEMORY_GROWTH=1"]


def test_webgpu_bindings_and_suspension_follow_the_version():
    assert flags("wasm-32-wasmrt-webgpu")[-2:] == ["-sUSE_WEBGPU=1", "-sASYNCIFY"]
    assert flags("wasm-32-wasmrt-webgpu", WITH_JSPI, suspend="jspi")[-1] == "-sJSPI"
    with pytest.raises(ToolchainError, match="does not have"):
        flags("wasm-32-wasmrt-webgpu", suspend="jspi")
    with pytest.raises(ToolchainError, match="no WebGPU bindings usable offline"):
        flags("wasm-32-wasmrt-webgpu", NO_USE_WEBGPU)
    online = flags("wasm-32-wasmrt-webgpu", NO_USE_WEBGPU, allow_network=True)
    assert online[-2:] == ["--use-port=emdawnwebgpu", "-sASYNCIFY"]


@pytest.mark.parametrize("target, message", [("x86-64-linux", "WebAssembly targets only"),
                                             ("wasm-32-wasmrt-vulkan", "WebGPU only")])
def test_targets_emcc_cannot_link(target, message):
    with pytest.raises(ToolchainError, match=message):
        flags(target)
