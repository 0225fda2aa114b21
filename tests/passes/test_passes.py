"""One small pipeline per lowering pass: the statement that reaches the pass and the one it
returns, against tests/passes/golden/<pass>.stmt. Regenerate with WEBHAL_UPDATE_GOLDEN=1 (as
tests/golden does), then read the diff: each file should show that pass's work and nothing else.

The input to a pass is what the passes before it make of the pipeline, so a golden changes when
an earlier pass does; the examples are chosen so that the pass under test changes the statement.
Targets are spelled out (not "host") so the files do not depend on the machine, and all but the
buffer checks example turn asserts off to keep the files short."""

from __future__ import annotations

import os

import pytest

import webhal as hl
from tests.passes.steps import pass_steps
from webhal.ir import stmt as st
from webhal.ir.printer import stmt_to_string, to_string
from webhal.ir.visitor import walk
from webhal.lower import PASSES

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
UPDATE = os.environ.get("WEBHAL_UPDATE_GOLDEN", "") not in ("", "0")
CPU = "wasm-32-wasmrt-wasm_simd128-no_asserts"
GPU = "wasm-32-wasmrt-webgpu-no_asserts"

x = hl.Var("x")


def schedule_functions():
    """f computed inside g's loop: a realize of f, with its produce and consume, in g's loop."""
    f, g = hl.Func("f"), hl.Func("g")
    f[x] = x * 2
    g[x] = f[x] + f[x + 1]
    f.compute_at(g, x)
    return g, CPU


def bounds_inference():
    """The same pipeline: f's region per iteration of g is [g.s0.x, g.s0.x + 1]."""
    return schedule_functions()


def sliding_window():
    """f stored at root and computed per x of g: each iteration computes only the new f(x + 1),
    in a buffer folded to 4 elements."""
    f, g = hl.Func("f"), hl.Func("g")
    f[x] = x * x
    g[x] = f[x - 1] + f[x + 1]
    f.store_root().compute_at(g, x)
    return g, CPU


def add_buffer_checks():
    """An input read one element to the right: type, dimension, stride and bounds asserts."""
    image = hl.ImageParam(hl.UInt(8), 1, "input")
    g = hl.Func("g")
    g[x] = image[x + 1]
    return g, "wasm-32-wasmrt"


def tracing():
    """f traces its stores and g its realizations: a print per store, lines around g's
    realization and production, and the pipeline's begin, tags and end."""
    f, g = hl.Func("f"), hl.Func("g")
    f[x] = x * 2
    g[x] = f[x] + 1
    f.compute_root().trace_stores()
    g.trace_realizations()
    return g, CPU


def storage_flattening():
    """A two-dimensional f computed at root: an allocation indexed with strides."""
    y = hl.Var("y")
    f, g = hl.Func("f"), hl.Func("g")
    f[x, y] = x + y
    g[x, y] = f[x, y] * 2
    f.compute_root()
    return g, CPU


def simplify():
    """(x + 3) - x + x * 0 folds to 3; the let that renames g.min.0 goes."""
    g = hl.Func("g")
    g[x] = (x + 3) - x + x * 0
    return g, CPU


def remove_dead_producers():
    """f's only read is multiplied by 0: its producer and storage go."""
    f, g = hl.Func("f"), hl.Func("g")
    f[x] = x * 2
    g[x] = f[x] * 0 + x
    f.compute_root()
    return g, CPU


def partition_loops():
    """A clamped read in a vectorized loop: the middle loop reads without the clamp."""
    image = hl.ImageParam(hl.UInt(8), 1, "input")
    g = hl.Func("g")
    g[x] = image[hl.clamp(x - 1, 0, image.width() - 1)]
    g.bound(x, 0, 16).vectorize(x, 4)
    return g, CPU


def lower_intrinsics():
    """absd becomes a select of two unsigned differences."""
    g = hl.Func("g")
    g[x] = hl.absd(x, 5)
    return g, CPU


def unroll():
    """A loop of two unrolled iterations becomes two copies of its body."""
    xo, xi = hl.Var("xo"), hl.Var("xi")
    g = hl.Func("g")
    g[x] = x * 3
    g.bound(x, 0, 8).split(x, xo, xi, 2, hl.TailStrategy.RoundUp).unroll(xi)
    return g, CPU


def vectorize():
    """A vectorized loop of 4 becomes one store of a ramp."""
    g = hl.Func("g")
    g[x] = x * 3
    g.bound(x, 0, 8).vectorize(x, 4, hl.TailStrategy.RoundUp)
    return g, CPU


def pack_mask_bits():
    """Four uint8 comparisons ORed into uint32 bits 0-1 and 8-9 become two uint8 bit fields,
    widened and shifted into place."""
    a = hl.ImageParam(hl.UInt(8), 1, "a")
    g = hl.Func("g")
    bits = [hl.select(a[x + k] < a[x], hl.u32(1 << s), hl.u32(0))
            for k, s in ((1, 0), (2, 1), (3, 8), (4, 9))]
    g[x] = bits[0] | bits[1] | bits[2] | bits[3]
    g.bound(x, 0, 16).vectorize(x, 16)
    return g, CPU


def find_intrinsics():
    """A uint8 sum saturated back to uint8 becomes saturating_add of two vector loads."""
    a = hl.ImageParam(hl.UInt(8), 1, "a")
    g = hl.Func("g")
    wide = hl.cast(hl.UInt(16), a[x]) + hl.cast(hl.UInt(16), a[x + 1])
    g[x] = hl.saturating_cast(hl.UInt(8), wide)
    g.bound(x, 0, 32).vectorize(x, 16)
    return g, CPU


def profiling():
    """With profile: the pipeline between start and end calls, f's production between
    set_current_func(1) and back to 0, g's parallel loop between parallel_start/end and each
    task between task_start(2) and task_end."""
    f, g = hl.Func("f"), hl.Func("g")
    y = hl.Var("y")
    f[x, y] = x * y
    g[x, y] = f[x, y] + 1
    f.compute_root()
    g.parallel(y)
    return g, CPU + "-profile"


def offload_gpu_loops():
    """A GPU tile of 8 becomes a kernel launch, with g registered as a device buffer and
    copied back at the end; the kernel body follows the host statement."""
    xo, xi = hl.Var("xo"), hl.Var("xi")
    g = hl.Func("g")
    g[x] = x * 2
    g.gpu_tile(x, xo, xi, 8)
    return g, GPU


EXAMPLES = [schedule_functions, bounds_inference, sliding_window, tracing, add_buffer_checks,
            storage_flattening, simplify, remove_dead_producers, partition_loops,
            lower_intrinsics, unroll, vectorize, pack_mask_bits, find_intrinsics, profiling,
            offload_gpu_loops]


def _module_name(fn) -> str:
    return fn.__module__.rsplit(".", 1)[1]


def _before_and_after(example) -> tuple[st.Stmt, st.Stmt]:
    """The statement reaching the pass the example is named after (its first run in PASSES),
    and the one that pass returns."""
    for _, fn, before, after in pass_steps(*example()):
        if _module_name(fn) == example.__name__:
            return before, after
    raise AssertionError(f"no pass {example.__name__} in PASSES")


def _text(example, before: st.Stmt, after: st.Stmt) -> str:
    doc = " ".join(example.__doc__.split())
    text = (f"# {example.__name__}: {doc}\n\n# before\n{stmt_to_string(before)}\n"
            f"# after\n{stmt_to_string(after)}")
    for launch in (n for n in walk(after) if isinstance(n, st.GPULaunch)):
        k = launch.kernel
        blocks = ", ".join(f"{b.name} from {to_string(b.min)} for {to_string(b.extent)}"
                           for b in k.blocks)
        text += (f"\n# kernel {launch.kernel_id} {k.name}: blocks {blocks}; workgroup "
                 f"{k.workgroup}; buffers {sorted(k.buffers)}\n{stmt_to_string(k.body)}")
    return text


def test_every_pass_has_an_example():
    assert {_module_name(fn) for _, fn in PASSES} == {e.__name__ for e in EXAMPLES}


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.__name__)
def test_pass(example):
    before, after = _before_and_after(example)
    assert after is not before, f"{example.__name__} left its example unchanged"
    text = _text(example, before, after)
    path = os.path.join(GOLDEN, f"{example.__name__}.stmt")
    if UPDATE:
        with open(path, "w") as f:
            f.write(text)
        return
    if not os.path.exists(path):
        pytest.fail(f"no golden file {path}; run with WEBHAL_UPDATE_GOLDEN=1 to create it")
    with open(path) as f:
        expected = f.read()
    assert text == expected, \
        f"{example.__name__}.stmt changed; if intended, WEBHAL_UPDATE_GOLDEN=1 updates it"
