"""webhal/abi.py: the layout matches Halide's published offsets, and the files generated from it
(webhal/include/HalideRuntime.h, runtime_js/abi.js) are up to date."""

import json
import subprocess

import pytest

from webhal import abi

REGENERATE = "run `python -m webhal.abi --write` and commit the result"


@pytest.mark.parametrize("path", sorted(abi.GENERATED), ids=lambda p: p.name)
def test_generated_file_is_up_to_date(path):
    assert path.read_text() == abi.GENERATED[path](), f"{path} is stale: {REGENERATE}"


def test_check_command_agrees():
    assert abi.main(["--check"]) == 0


def test_buffer_layout_is_halides():
    # docs/abi.md's table: wasm32 and x86-64.
    assert abi.HALIDE_BUFFER_T.offsets(4) == {
        "device": 0, "device_interface": 8, "host": 12, "flags": 16, "type": 24,
        "dimensions": 28, "dim": 32, "padding": 36}
    assert abi.HALIDE_BUFFER_T.size(4) == 40
    assert abi.HALIDE_BUFFER_T.offsets(8) == {
        "device": 0, "device_interface": 8, "host": 16, "flags": 24, "type": 32,
        "dimensions": 36, "dim": 40, "padding": 48}
    assert abi.HALIDE_BUFFER_T.size(8) == 56
    for bits in abi.POINTER_SIZES:
        assert abi.HALIDE_DIMENSION_T.size(bits) == 16
        assert abi.HALIDE_TYPE_T.size(bits) == 4


def test_type_packing():
    assert abi.pack_type("uint", 16) == 1 | 16 << 8 | 1 << 16
    assert abi.pack_type("float", 32, 4) == 2 | 32 << 8 | 4 << 16
    assert abi.type_name(abi.pack_type("uint", 1)) == "bool"
    assert abi.type_name(abi.pack_type("float", 32, 4)) == "float32x4"


def test_error_functions_return_their_named_codes():
    for name in abi.ERROR_FUNCTIONS:
        assert abi.error_code(name) == abi.ERROR_CODES[name.removeprefix("halide_error_")]
    assert abi.error_code("halide_error_something_new") == abi.ERROR_CODES["generic_error"]
    assert abi.string_parameters("halide_error_constraint_violated") == (0, 2)


def test_gpu_args_bytes_are_whole_uniform_rows():
    assert [abi.gpu_args_bytes(n) for n in (0, 1, 4, 5, 8, 9)] == [16, 16, 16, 32, 32, 48]


def test_javascript_module_has_the_same_values(tmp_path, node):
    script = tmp_path / "read.mjs"
    script.write_text(f"import * as abi from {json.dumps(str(abi.JS_PATH))};\n"
                      "console.log(JSON.stringify({codes: abi.ERROR_CODE, buffer: "
                      "abi.HALIDE_BUFFER_T, packed: abi.packType('float', 32, 4)}));\n")
    run = subprocess.run([node.path, str(script)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["codes"] == abi.ERROR_CODES
    assert seen["buffer"] == {"size": 40, **abi.HALIDE_BUFFER_T.offsets(4)}
    assert seen["packed"] == abi.pack_type("float", 32, 4)


@pytest.mark.parametrize("target, pointer_bytes", [("host", 8), ("wasm-32-wasmrt", 4)])
def test_llvm_structs_have_the_abi_layout(target, pointer_bytes):
    from webhal.codegen.llvm.target_machine import target_machine
    from webhal.codegen.llvm.types import BUFFER_T, DIMENSION_T
    from webhal.target import Target

    data = target_machine(Target(target)).target_data
    for llvm_struct, s in ((BUFFER_T, abi.HALIDE_BUFFER_T), (DIMENSION_T, abi.HALIDE_DIMENSION_T)):
        assert llvm_struct.get_abi_size(data) == s.size(pointer_bytes)
        assert [llvm_struct.get_element_offset(data, i) for i in range(len(s.fields))] == \
            list(s.offsets(pointer_bytes).values())
