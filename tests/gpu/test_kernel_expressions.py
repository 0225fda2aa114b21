"""How GPU kernels compute their expressions, on WebGPU (WGSL, wgpu-py on lavapipe; each module
also created on dawn.node by tests/conftest.py) and on Vulkan (SPIR-V, webhal's runtime on
lavapipe): a subexpression repeated in one statement (an inlined Func read several times) is
computed once (codegen/wgsl/legalize/cse.py), and a division or modulo by a power of two is a
shift or a mask, with Halide's rounding for negative numbers."""

import numpy as np
import pytest

import webhal as hl
from webhal.codegen import device_code
from webhal.codegen.wgsl.legalize.cse import common_subexpressions
from webhal.codegen.wgsl.legalize.guards import hoist_guards
from webhal.ir import nodes as ir
from webhal.ir import stmt as st
from webhal.ir.schedule import DeviceAPI, ForType
from webhal.ir.types import Float, Int
from webhal.jit import compile_jit
from webhal.toolchain.spirv import disassemble

x, xo, xi = hl.Var("x"), hl.Var("xo"), hl.Var("xi")
TARGETS = ["host-webgpu", "host-vulkan"]


def _code(f, target: str) -> str:
    """The kernels' text: WGSL, or the disassembled SPIR-V."""
    _, lowered = compile_jit(hl.Pipeline(f), hl.Target(target))
    if "vulkan" in target:
        return disassemble(device_code(lowered)[DeviceAPI.Vulkan][0])
    return device_code(lowered)[DeviceAPI.WebGPU][0]


@pytest.mark.parametrize("target", TARGETS)
def test_repeated_subexpressions_computed_once(target, request):
    request.getfixturevalue("vulkan_device" if "vulkan" in target else "wgpu_adapter")
    inp = hl.ImageParam(hl.Float(32), 1, "input")
    g = hl.Func("g")
    g[x] = hl.exp(inp[x] * 0.5)
    f = hl.Func("f")
    f[x] = g[x] * g[x] + g[x] / (g[x] + 1.0) + hl.sqrt(g[x])
    f.gpu_tile(x, xo, xi, 16)
    code = _code(f, target)
    if "vulkan" in target:
        assert code.count("OpLoad %float") == 1 and code.count(" Exp ") == 1, code
    else:
        body = code[code.index("fn kernel_0_f("):]
        assert body.count("b_1[") == 1 and body.count("exp(") == 1, body
    data = np.linspace(-3, 3, 70).astype(np.float32)
    inp.set(hl.Buffer(data))
    np.testing.assert_allclose(np.asarray(f.realize([70], target)),
                               np.asarray(f.realize([70], "reference")), rtol=1e-5)


@pytest.mark.parametrize("target", TARGETS)
def test_division_by_powers_of_two(target, request):
    """x / 2^k rounds down and x % 2^k is never negative, as Halide's, for signed and unsigned
    values (int16 ones widened to 32 bits first), with no general division left."""
    request.getfixturevalue("vulkan_device" if "vulkan" in target else "wgpu_adapter")
    for t, dtype in ((hl.Int(32), np.int32), (hl.UInt(32), np.uint32), (hl.Int(16), np.int16)):
        inp = hl.ImageParam(t, 1, "input")
        f = hl.Func("f")
        f[x] = (inp[x] / hl.cast(t, 1) + inp[x] / hl.cast(t, 2) + inp[x] / hl.cast(t, 8)
                + inp[x] % hl.cast(t, 4) + inp[x] % hl.cast(t, 1) + inp[x] % hl.cast(t, 16))
        f.gpu_tile(x, xo, xi, 16)
        code = _code(f, target)
        if "vulkan" in target:
            assert "SDiv" not in code and "UDiv" not in code and "UMod" not in code, t
            assert "ShiftRight" in code and "OpBitwiseAnd" in code, t
        else:
            body = code[code.index("fn kernel_0_f("):]
            assert "hl_div" not in body and "hl_mod" not in body and " >> 3u)" in body, t
        info = np.iinfo(dtype)
        data = np.concatenate([np.arange(-40, 40), [info.min, info.min + 1, info.max,
                                                    info.max - 1]]).astype(dtype)
        inp.set(hl.Buffer(data))
        np.testing.assert_array_equal(np.asarray(f.realize([len(data)], target)),
                                      np.asarray(f.realize([len(data)], "reference")),
                                      err_msg=str(t))


@pytest.mark.parametrize("target", TARGETS)
def test_a_scatter_reads_its_sample_once(target, request):
    """A histogram's update, its two channels a vector (the bilateral grid's): the uint8
    sample (a packed load) and the bin it falls in are computed once a point, though
    scalarize binds the bin for the loads and again for the stores and pack_storage gives
    each load of the sample an index of its own (before: three loads of the sample's word,
    two of the bin)."""
    request.getfixturevalue("vulkan_device" if "vulkan" in target else "wgpu_adapter")
    z, c = hl.Var("z"), hl.Var("c")
    inp = hl.ImageParam(hl.UInt(8), 1, "input")
    r = hl.RDom([(0, 4)], "r")
    v = inp[x * 4 + r.x]
    h = hl.Func("h")
    h[x, z, c] = 0.0
    h[x, hl.i32(v) / 64, c] += hl.select(c == 0, hl.f32(v), 1.0)
    h.bound(c, 0, 2).gpu_tile(x, xo, xi, 8)
    h.update().reorder(c, r.x, x).vectorize(c).gpu_tile(x, xo, xi, 8)
    if "vulkan" not in target:
        code = _code(h, target)
        body = code[code.index("fn kernel_1_h("):]
        body = body[:body.index("\n}\n")]
        assert body.count(">> 6u") == 1 and body.count("& 255u") == 2, body
    data = (np.arange(64) * 37 % 256).astype(np.uint8)
    inp.set(hl.Buffer(data))
    np.testing.assert_array_equal(np.asarray(h.realize([16, 4, 2], target)),
                                  np.asarray(h.realize([16, 4, 2], "reference")))


@pytest.mark.parametrize("target", TARGETS)
def test_overlapping_taps_of_a_packed_buffer_load_once(target, request):
    """A 3-tap uint8 filter, two outputs an invocation: its six taps are four elements, each
    loaded once (scalarize renames the lanes' indices, t + 1 and then (t + 1) + 1 for t + 2;
    pack_storage keys an index by its base and offset, CSE follows renamings)."""
    request.getfixturevalue("vulkan_device" if "vulkan" in target else "wgpu_adapter")
    xv = hl.Var("xv")
    inp = hl.ImageParam(hl.UInt(8), 1, "input")
    f = hl.Func("f")
    f[x] = hl.u16(inp[x]) + inp[x + 1] + inp[x + 2]
    f.split(x, x, xv, 2).vectorize(xv).gpu_tile(x, xo, xi, 16)
    if "vulkan" not in target:
        code = _code(f, target)
        body = code[code.index("fn kernel_0_f"):]
        body = body[:body.index("\n}\n")]
        assert body.count("& 255u") == 4, body
    data = (np.arange(70) * 53 % 256).astype(np.uint8)
    inp.set(hl.Buffer(data))
    np.testing.assert_array_equal(np.asarray(f.realize([64], target)),
                                  np.asarray(f.realize([64], "reference")))


def test_a_packed_buffer_only_read_is_loaded_without_atomics(wgpu_adapter):
    """A uint16 Func computed at root is written through atomic words (invocations share
    words) and read by its consumer's kernel, which does not write it, through a plain view
    of the same binding: no atomicLoad there."""
    y, yo, yi = hl.Var("y"), hl.Var("yo"), hl.Var("yi")
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    g, f = hl.Func("g"), hl.Func("f")
    g[x, y] = hl.u16(inp[x, y]) * 3 + 1
    f[x, y] = hl.u8((g[x, y] + g[x + 1, y]) / 4)
    g.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    f.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    code = _code(f, "host-webgpu")
    body = code[code.index("fn kernel_1_f"):]
    body = body[:body.index("\n}\n")]
    assert "atomicLoad" not in body and "_r[" in body, body
    assert "atomicOr" in code[code.index("fn kernel_0_g"):code.index("fn kernel_1_f")]
    data = (np.arange(21 * 9) * 29 % 256).astype(np.uint8).reshape(9, 21)
    inp.set(hl.Buffer(data))
    np.testing.assert_array_equal(np.asarray(f.realize([19, 9], "host-webgpu")),
                                  np.asarray(f.realize([19, 9], "reference")))


@pytest.mark.parametrize("target", TARGETS)
def test_guards_leave_the_loops_of_an_rdom(target, request):
    """GuardWithIf's tests of an update's tiled Vars, placed inside the RDom's loops, are
    taken out of them (they do not change there): the kernel tests before it loops."""
    request.getfixturevalue("vulkan_device" if "vulkan" in target else "wgpu_adapter")
    inp = hl.ImageParam(hl.Float(32), 1, "input")
    r = hl.RDom([(0, 4)], "r")
    h = hl.Func("h")
    h[x] = 0.0
    h[x] += inp[x * 4 + r.x]
    h.gpu_tile(x, xo, xi, 8)
    h.update().gpu_tile(x, xo, xi, 8, hl.TailStrategy.GuardWithIf)
    if "vulkan" not in target:
        code = _code(h, target)
        body = code[code.index("fn kernel_1_h("):]
        body = body[:body.index("\n}\n")]
        assert 0 <= body.index("if (") < body.index("for ("), body
    data = np.arange(13 * 4, dtype=np.float32)
    inp.set(hl.Buffer(data))
    np.testing.assert_array_equal(np.asarray(h.realize([13], target)),
                                  np.asarray(h.realize([13], "reference")))


def test_guards_that_read_memory_or_the_loop_stay_inside():
    i32 = Int(32)
    r, a = ir.Variable(i32, "r"), ir.Variable(i32, "a")
    zero, one = ir.IntImm(i32, 0), ir.IntImm(i32, 1)

    def loop(body):
        return st.For("r", zero, ir.IntImm(i32, 4), ForType.Serial, body)
    store = st.Store("out", r, a)
    moved = hoist_guards(loop(st.LetStmt("a", ir.Add(ir.Variable(i32, "n"), one),
                                         st.IfThenElse(ir.LT(a, one), store))))
    assert isinstance(moved, st.LetStmt) and isinstance(moved.body, st.IfThenElse), moved
    assert isinstance(moved.body.then_case, st.For), moved
    for test in (ir.LT(r, one), ir.LT(ir.Load(i32, "buf", zero), one)):
        kept = loop(st.IfThenElse(test, store))
        assert hoist_guards(kept) is kept


def _let(name: str, value: ir.Expr, body: st.Stmt) -> st.LetStmt:
    return st.LetStmt(name, value, body)


def test_cse_names_a_let_value_in_what_it_encloses():
    """A LetStmt's value is its name in the statements inside it: everywhere when it reads
    no memory; when it loads, along its chain of LetStmts and the expressions of the
    statement that ends it, not in statements nested further (a store before them may
    change what it read), and not once its name or a name it reads is bound again."""
    i32 = Int(32)
    a = ir.Variable(i32, "a")
    pure = ir.Mul(ir.Add(a, ir.IntImm(i32, 3)), ir.IntImm(i32, 5))
    load = ir.Load(i32, "buf", pure)
    zero = ir.IntImm(i32, 0)

    def store(value):
        return st.Store("out", value, zero)

    # along the chain: both reuse their name
    body = common_subexpressions(_let("p", pure, _let("l", load, _let(
        "q", ir.Add(pure, ir.IntImm(i32, 1)), store(ir.Add(load, pure))))))
    q = body.body.body
    assert q.value == ir.Add(ir.Variable(i32, "p"), ir.IntImm(i32, 1)), q
    assert q.body.value == ir.Add(ir.Variable(i32, "l"), ir.Variable(i32, "p")), q.body
    # nested after a store: the load is loaded again, the pure value still named
    body = common_subexpressions(_let("p", pure, _let("l", load, st.Block((
        st.Store("buf", zero, pure), store(ir.Add(load, pure)))))))
    assert body.body.body.stmts[1].value == ir.Add(load.__class__(
        i32, "buf", ir.Variable(i32, "p")), ir.Variable(i32, "p")), body
    # a renaming: uses of the new name read the old one, and compare equal through it
    body = common_subexpressions(_let("l", load, _let("b", a, store(ir.Load(
        i32, "buf", ir.Mul(ir.Add(ir.Variable(i32, "b"), ir.IntImm(i32, 3)),
                           ir.IntImm(i32, 5)))))))
    assert body.body.body.value == ir.Variable(i32, "l"), body
    # `a` bound again inside: neither value is the same any more
    body = common_subexpressions(_let("p", pure, _let("a", zero, store(pure))))
    assert body.body.body.value == pure, body


def test_cse_tells_signed_zeros_apart():
    """x + 0.0 and x + -0.0 differ (for x = -0.0): the pass shares only what is equal."""
    v = ir.Variable(Float(32), "v")
    plus, minus = ir.Add(v, ir.FloatImm(Float(32), 0.0)), ir.Add(v, ir.FloatImm(Float(32), -0.0))
    index = ir.IntImm(Int(32), 0)
    body = common_subexpressions(st.Store("out", ir.Div(ir.Mul(plus, plus), minus), index))
    assert isinstance(body, st.LetStmt) and body.value == plus, body
    assert isinstance(body.body, st.Store) and body.body.value.b == minus, body
