"""The host JIT's ctypes view of halide_buffer_t has abi.py's layout."""

import ctypes

import numpy as np

import webhal as hl
from webhal import abi
from webhal.runtime.buffers import HalideBuffer, HalideDimension, HostBuffer


def test_ctypes_layout_matches_abi():
    pointer = ctypes.sizeof(ctypes.c_void_p)
    for struct, s in ((HalideBuffer, abi.HALIDE_BUFFER_T),
                      (HalideDimension, abi.HALIDE_DIMENSION_T)):
        assert ctypes.sizeof(struct) == s.size(pointer)
        assert {f.name: getattr(struct, f.name).offset for f in s.fields} == s.offsets(pointer)


def test_host_buffer_describes_the_array():
    buf = hl.Buffer(np.zeros((3, 5), dtype=np.uint16))
    hb = HostBuffer(buf)
    assert hb.struct.type == abi.pack_type("uint", 16)
    assert hb.struct.dimensions == 2
    assert [hb.dims[d].extent for d in range(2)] == list(buf.data().shape)
    assert hb.dims[0].stride == 1
