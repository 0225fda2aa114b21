"""Objects for other machines than this one (Halide's lesson 11): another arch, bit width or
OS gives that machine's object format and instruction set, not this host's; such a target
cannot be realized here, and says so."""

import struct

import pytest

import webhal as hl

x = hl.Var("x")


def _brighter():
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    f = hl.Func("brighter")
    y = hl.Var("y")
    f[x, y] = hl.u8(hl.min(hl.u16(inp[x, y]) * 3 // 2, 255))
    f.vectorize(x, 16)
    return f, [inp]


# target -> (file suffix, check of the first bytes)
CASES = {
    # ELF, 32-bit, little-endian, machine EM_ARM (40)
    "arm-32-android": (".o", lambda b: b[:5] == b"\x7fELF\x01" and
                       struct.unpack_from("<H", b, 18)[0] == 40),
    # ELF, 64-bit, machine EM_AARCH64 (183)
    "arm-64-linux": (".o", lambda b: b[:5] == b"\x7fELF\x02" and
                     struct.unpack_from("<H", b, 18)[0] == 183),
    # COFF for x86-64 (machine 0x8664), with the .obj name Halide gives it
    "x86-64-windows-avx-sse41": (".obj", lambda b: b[:2] == b"\x64\x86"),
    # Mach-O 32-bit, CPU type ARM (12), subtype ARMv7s (11)
    "arm-32-ios-armv7s": (".o", lambda b: struct.unpack_from("<4I", b) [:3] ==
                          (0xFEEDFACE, 12, 11)),
}


@pytest.mark.parametrize("target", list(CASES))
def test_objects_for_other_machines(target, tmp_path):
    f, args = _brighter()
    suffix, looks_right = CASES[target]
    prefix = str(tmp_path / "brighter")
    f.compile_to_file(prefix, args, "brighter", hl.Target(target))
    data = open(prefix + suffix, "rb").read()
    assert looks_right(data), f"{target}: unexpected header {data[:20].hex()}"
    assert "int brighter(" in open(prefix + ".h").read()


def test_a_target_changed_in_place_compiles_for_that_machine(tmp_path):
    f, args = _brighter()
    t = hl.Target()
    t.os, t.arch, t.bits = hl.TargetOS.Android, hl.TargetArch.ARM, 32
    f.compile_to_file(str(tmp_path / "b"), args, "b", t)
    assert CASES["arm-32-android"][1](open(tmp_path / "b.o", "rb").read())


def test_another_machines_target_is_not_run_here():
    f = hl.Func("twice")
    f[x] = x * 2
    with pytest.raises(hl.HalideError, match="cannot run code for arm-64-linux on this machine"):
        f.realize([4], "arm-64-linux")
