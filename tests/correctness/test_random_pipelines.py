"""Random pipelines under random schedules (hypothesis): a chain of two or three Funcs, each a
random expression tree over two photos (read through a boundary condition, at random offsets),
the coordinates and constants, each scheduled at random (splits with any legal tail strategy,
vectorize, unroll, parallel, reorder; producers inline, at root, or at a loop of their consumer,
possibly stored further out). Every compiled target must match the reference: integers bit for
bit, float32 exactly too (no math functions here, and webhal does not reassociate).

Examples are derandomized (the same on every run and for every target) and few, to keep the file
well under a minute; HYPOTHESIS_EXAMPLES=n asks for more, HYPOTHESIS_EXPLORE=1 for new ones."""

from __future__ import annotations

import os

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, given, settings

import webhal as hl
from tests.random_expressions import expressions as random_expressions

from .conftest import assert_same, camera, fused_multiply_add, fusion_tolerance, realize

x, y = hl.Var("x"), hl.Var("y")
SIZE = (19, 13)  # the output; odd so that every split has a tail
TYPES = {"uint8": hl.UInt(8), "int16": hl.Int(16), "int32": hl.Int(32), "float32": hl.Float(32)}
TAILS = [hl.TailStrategy.Auto, hl.TailStrategy.GuardWithIf, hl.TailStrategy.ShiftInwards,
         hl.TailStrategy.RoundUp]
EXAMPLES = int(os.environ.get("HYPOTHESIS_EXAMPLES", "4"))
EXPLORE = os.environ.get("HYPOTHESIS_EXPLORE", "") not in ("", "0")

PHOTOS = [hl.BoundaryConditions.repeat_edge(hl.Buffer(camera(24, 16, left, top), f"photo{i}"))
          for i, (left, top) in enumerate([(200, 200), (60, 330)])]


# -- expressions ---------------------------------------------------------------------------------

def expressions(t: hl.Type, sources: list, depth: int = 3):
    """An Expr of type t over `sources` (Funcs of two dimensions), x, y and constants."""
    return random_expressions(t, sources, depth, types=list(TYPES.values()))


# -- schedules -----------------------------------------------------------------------------------

@st.composite
def loop_schedule(draw, f, is_output: bool, is_update: bool = False) -> None:
    """Splits, vectorize, unroll, parallel, reorder and fuse on one stage of a Func."""
    tails = [t for t in TAILS if not (is_output and t is hl.TailStrategy.RoundUp) and
             not (is_update and t is hl.TailStrategy.ShiftInwards)]
    for var in draw(st.permutations(["x", "y"])):
        choice = draw(st.sampled_from(["none", "split", "vectorize", "unroll", "parallel"]))
        tail = draw(st.sampled_from(tails))
        v = hl.Var(var)
        if choice == "split":
            f.split(v, v, hl.Var(var + "_in"), draw(st.integers(1, 8)), tail)
        elif choice == "vectorize" and var == "x":
            f.vectorize(v, draw(st.sampled_from([2, 4, 8, 16])), tail)
        elif choice == "unroll":
            f.unroll(v, draw(st.integers(2, 4)), tail)
        elif choice == "parallel":
            f.parallel(v, draw(st.sampled_from([None, 1, 3])), tail)
    loops = f.loops()
    if draw(st.booleans()):
        f.reorder(*(hl.Var(n) for n in draw(st.permutations(loops))))
    elif sorted(loops) == ["x", "y"] and draw(st.integers(0, 3)) == 0:
        f.fuse(hl.Var(loops[0]), hl.Var(loops[1]), hl.Var("fused"))


@st.composite
def update(draw, f: hl.Func, t: hl.Type, sources: list) -> bool:
    """Maybe an update of f: pure (f = f op e) or over a small RDom."""
    kind = draw(st.sampled_from(["none", "none", "pure", "rdom"]))
    if kind == "pure":
        f[x, y] = f[x, y] * hl.cast(t, 3) - draw(expressions(t, sources, 2))
    elif kind == "rdom":
        r = hl.RDom([(-1, 3)], "r")
        src = draw(st.sampled_from(sources))
        f[x, y] = f[x, y] + hl.cast(t, src[x + r.x, y - r.x])
    return kind != "none"


@st.composite
def pipelines(draw, type_names: list[str]):
    t = TYPES[draw(st.sampled_from(type_names))]
    n = draw(st.integers(2, 3))
    funcs: list[hl.Func] = []
    updated = set()
    for i in range(n):
        f = hl.Func(f"stage{i}")
        sources = [*PHOTOS, *funcs[-1:]]
        f[x, y] = draw(expressions(t, sources))
        if draw(update(f, t, sources)):
            updated.add(f.name())
        funcs.append(f)
    out = funcs[-1]

    def schedule(f, is_output):
        draw(loop_schedule(f, is_output))
        if f.name() in updated:
            draw(loop_schedule(f.update(0), is_output, is_update=True))

    # Consumers first, so that producers can be computed at the consumer's final loops.
    schedule(out, True)
    for producer, consumer in zip(reversed(funcs[:-1]), reversed(funcs[1:])):
        # Inside the consumer's loops only when the consumer is computed (not inline) and has
        # one stage: with several, each stage that reads the producer would need it.
        can_nest = consumer.name() not in updated and (
            consumer is out or not consumer.function().schedule.compute_level.is_inlined())
        where = draw(st.sampled_from(["inline", "root", "at", "at"] if can_nest
                                     else ["inline", "root"]))
        if where == "root":
            producer.compute_root()
        elif where == "at":
            loops = consumer.loops()
            level = draw(st.sampled_from(loops))
            producer.compute_at(consumer, hl.Var(level))
            outer = loops[loops.index(level):]
            store = draw(st.sampled_from(outer + ["root"]))
            if store == "root":
                producer.store_root()
            elif store != level:
                producer.store_at(consumer, hl.Var(store))
        if where != "inline" or producer.name() in updated:  # (Funcs with updates: at root)
            schedule(producer, False)
    return hl.Pipeline(out), t


@pytest.mark.parametrize("type_names", [["uint8", "int16", "int32"], ["float32"]],
                         ids=["integers", "float32"])
def test_random_pipelines(compiled_target, type_names):
    fused = fused_multiply_add(compiled_target)

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=not EXPLORE, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.data())
    def run(data):
        pipeline, t = data.draw(pipelines(type_names))
        want = realize(pipeline, SIZE, "reference")[0]
        got = realize(pipeline, SIZE, compiled_target)[0]
        rtol, atol = fusion_tolerance(want, 0.0, 0.0) if fused else (0.0, 0.0)
        assert_same(got, want, rtol=rtol, atol=atol, what=f"{t} pipeline on {compiled_target}")

    run()
