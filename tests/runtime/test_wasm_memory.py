"""The wasm runner's view of halide_buffer_t in wasm32 memory has abi.py's layout."""

from webhal import abi
from webhal.runtime.wasm_memory import WasmBuffer, struct_layout


def test_struct_formats_match_abi():
    assert WasmBuffer.LAYOUT.size == abi.HALIDE_BUFFER_T.size(4)
    assert WasmBuffer.DIMENSION.size == abi.HALIDE_DIMENSION_T.size(4)
    # Field by field: pack a distinct value into each and find it at abi's offset.
    s = abi.HALIDE_BUFFER_T
    values = [i + 1 for i in range(len(s.fields))]
    data = WasmBuffer.LAYOUT.pack(*values)
    for f, v in zip(s.fields, values):
        at = s.offsets(4)[f.name]
        assert int.from_bytes(data[at:at + abi.size_of(f.kind, 4)], "little") == v


def test_padding_is_explicit():
    padded = abi.Struct("t", (abi.Field("a", "uint8"), abi.Field("b", "uint64")), "")
    assert struct_layout(padded).format == "<B7xQ"
