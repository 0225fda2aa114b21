"""Random pipelines and schedules, written once as Python source over a module named `hl`.

`generate(seed)` draws a Program: the source of a function `build(hl, inputs)` that defines a
chain of Funcs over a few input images (their values from expressions.py) and schedules them,
and the input arrays. The same source runs with `hl = webhal` and with `hl = halide`, so both
libraries see exactly the same calls, and a failing seed prints as a standalone reproduction.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .expressions import (
    BOUNDARIES,
    HL_TYPE,
    INT_TYPES,
    MARGIN,
    TAILS,
    Generator,
    Val,
    type_range,
)


@dataclass
class Program:
    seed: int
    source: str                      # defines build(hl, inputs) -> output Func
    inputs: dict[str, np.ndarray]    # numpy order (rows first)
    size: tuple[int, int]            # the output's width and height
    output_type: str
    exact: bool                      # no inexact float reaches the output
    gpu: bool                        # scheduled for a GPU target
    features: set[str] = field(default_factory=set)

    def build(self, hl, schedule: bool = True):
        """The output Func, built with the module `hl` (webhal or halide); `schedule=False`
        leaves every Func at Halide's default schedule (inline)."""
        scope: dict = {}
        exec(compile(self.source, f"<seed {self.seed}>", "exec"), scope)  # noqa: S102
        return scope["build"](hl, dict(self.inputs), schedule)


# -- pipelines -------------------------------------------------------------------------------

@dataclass
class FuncInfo:
    name: str
    value: Val                # what reading it gives
    updated: bool = False     # has update definitions (never inlined)
    dims: int = 2
    loops: list[str] = field(default_factory=lambda: ["x", "y"])  # innermost first
    where: str = "inline"     # inline | root | at <loop> | output


def input_array(rng: np.random.Generator, t: str, w: int, h: int) -> np.ndarray:
    if t.startswith("float"):
        return (rng.standard_normal((h, w)) * 100).astype(t)
    lo, hi = type_range(t)
    if t in ("int32", "int64"):
        lo, hi = -50000, 50000
    big = t == "uint64"
    data = rng.integers(lo, hi, (h, w), dtype=np.uint64 if big else np.int64,
                        endpoint=True).astype(t)
    flat = data.reshape(-1)  # the extremes are always there
    flat[:4] = [lo, hi, 0, 1]
    return data


class PipelineGenerator(Generator):
    def program(self) -> Program:
        w, h = self.pick([1, 2, 3, 7, 16, 19, 33]), self.pick([1, 2, 5, 13, 20])
        self.emit('x, y = hl.Var("x"), hl.Var("y")')
        data_rng = np.random.default_rng(self.seed)
        inputs: dict[str, np.ndarray] = {}
        sources: list[Val] = []
        images: list[tuple[str, str]] = []  # (Func-like name, type) readable at any point
        for i in range(self.pick([1, 1, 2])):
            t = self.pick(INT_TYPES + self.float_types)  # (Halide's Python has no 64-bit
            # integer Buffers)
            name = f"in{i}"
            inputs[name] = input_array(data_rng, t, w + 2 * MARGIN, h + 2 * MARGIN)
            self.emit(f'{name} = hl.Buffer(inputs["{name}"], "{name}")')
            lo, hi = type_range(t) if not t.startswith("float") else (-1e3, 1e3)
            if t in ("int32", "int64"):
                lo, hi = -50000, 50000
            if t.startswith("float"):
                lo, hi = float(inputs[name].min()), float(inputs[name].max())
            bc = self.pick(BOUNDARIES + ["none"])
            if bc == "none":  # read directly, shifted into the buffer's interior
                self.emit(f"{name}.set_min([-{MARGIN}, -{MARGIN}])")
                ref = name
            elif bc == "constant_exterior":
                c = self.const(t)
                ref = f"b{i}"
                self.emit(f"{ref} = hl.BoundaryConditions.constant_exterior({name}, {c.code})")
                lo, hi = min(lo, c.lo), max(hi, c.hi)
            else:
                ref = f"b{i}"
                self.emit(f"{ref} = hl.BoundaryConditions.{bc}({name})")
            images.append((ref, t, lo, hi))
            if t.startswith("float"):
                self.floaty |= {name, ref}

        def read(ref, t, lo, hi, exact=True) -> Val:
            dx, dy = self.rng.randint(-2, 2), self.rng.randint(-2, 2)
            return Val(f"{ref}[{offset('x', dx)}, {offset('y', dy)}]", t, lo, hi, exact)

        funcs: list[FuncInfo] = []
        if self.chance(0.2):
            funcs.append(self.histogram(images))
        n = self.pick([1, 2, 2, 3, 3, 4])
        for i in range(n):
            t = self.pick((INT_TYPES if i == n - 1 else self.int_types) + self.float_types)
            sources = [read(*im) for im in images for _ in range(2)]
            if funcs:
                last = funcs[-1]
                if last.dims == 2:
                    sources += [read(last.name, last.value.type, last.value.lo,
                                     last.value.hi, last.value.exact) for _ in range(2)]
                else:
                    sources.append(Val(f"{last.name}[(x + y) % {last.loops[0]}]",
                                       last.value.type, last.value.lo, last.value.hi))
                    last.loops = ["x"]
            if self.chance(0.15):
                sources.append(self.inline_reduction(images))
            name = f"f{len(funcs)}"
            v = self.expr(t, sources, self.pick([1, 2, 3, 3]))
            self.emit(f'{name} = hl.Func("{name}")')
            self.emit(f"{name}[x, y] = {v.code}")
            info = FuncInfo(name, v)
            if self.from_float(v.code):
                self.floaty.add(name)
            if self.chance(0.25):
                self.update(info, sources)
            funcs.append(info)
        out = funcs[-1]
        if not out.value.exact and not out.value.type.startswith("float"):
            raise AssertionError("an inexact value reached an integer")  # generator bug
        algorithm = list(self.lines)
        self.lines = []
        self.schedule(funcs)
        source = "\n".join([
            "def build(hl, inputs, schedule=True):", *algorithm,
            "    if schedule:", *(["        pass"] if not self.lines else
                                  ["    " + ln for ln in self.lines]),
            f"    return {out.name}", ""])
        return Program(self.seed, source, inputs, (w, h), out.value.type, out.value.exact,
                       self.gpu, self.features)

    def histogram(self, images) -> FuncInfo:
        """h[x] counts an image's values in 8 bins over a small window (a data-dependent
        update: the left side reads the image)."""
        ref, t, lo, hi = self.pick(images)
        ht = self.pick(["int32", "uint16", "float32"])
        bins = self.pick([4, 8])
        self.emit('r_h = hl.RDom([hl.Range(-1, 9), hl.Range(0, 4)], "r_h")')
        self.emit('h = hl.Func("h")')
        self.emit(f"h[x] = hl.cast({HL_TYPE[ht]}, 0)")
        v = Val(f"{ref}[r_h.x, r_h.y]", t, lo, hi)
        idx = self.to_type("int32", v) if not t.startswith("float") else \
            Val(f"hl.i32(hl.clamp({v.code}, -1000.0, 1000.0))", "int32", -1000, 1000)
        self.emit(f"h[hl.clamp(({idx.code}) % {bins * 3}, 0, {bins - 1})] += "
                  f"hl.cast({HL_TYPE[ht]}, 1)")
        self.features.add("histogram")
        return FuncInfo("h", Val("h", ht, 0, 36), updated=True, dims=1, loops=[str(bins)])

    def inline_reduction(self, images) -> Val:
        ref, t, lo, hi = self.pick(images)
        fn = self.pick(["sum", "maximum", "minimum"])
        self.emit(f'r{len(self.lines)} = hl.RDom([hl.Range(-1, 3)], "r{len(self.lines)}")')
        r = f"r{len(self.lines) - 1}"
        self.features.add("inline_reduction")
        if fn == "sum":
            st = "int32" if not t.startswith("float") and t != "uint32" else t
            v = self.to_type(st, Val(f"{ref}[x + {r}.x, y]", t, lo, hi))
            if v is None or not Val("", st, 3 * v.lo, 3 * v.hi).fits(st) and st == "int32":
                return Val(f"{ref}[x, y]", t, lo, hi)
            span = (3 * v.lo, 3 * v.hi) if v.fits("int16") or st != "uint32" else \
                type_range(st)
            return Val(f"hl.sum({v.code})", st, *span, v.exact and not self.gpu)
        if self.chance(0.3):  # a Tuple-valued reduction: the index of the best, or its value
            fn = self.pick(["argmax", "argmin"])
            self.features.add("tuple")
            if self.chance(0.5):
                return Val(f"hl.{fn}({ref}[x + {r}.x, y - {r}.x])[0]", "int32", -1, 1)
            return Val(f"hl.{fn}({ref}[x + {r}.x, y - {r}.x])[1]", t, lo, hi)
        return Val(f"hl.{fn}({ref}[x + {r}.x, y - {r}.x])", t, lo, hi)

    def update(self, f: FuncInfo, sources: list[Val]) -> None:
        t = f.value.type
        kind = self.pick(["pure", "rdom", "rdom_max"])
        me = Val(f"{f.name}[x, y]", t, f.value.lo, f.value.hi, f.value.exact)
        if kind == "pure":
            e = self.expr(t, sources, 1)
            op = self.pick(["+", "-", "*"])
            corners = [eval(f"p {op} q") for p in (me.lo, me.hi) for q in (e.lo, e.hi)]  # noqa: S307
            v = self.wrap(t, min(corners), max(corners), f"{me.code} {op} ({e.code})",
                          me.exact and e.exact)
            if v is None:
                return
            self.emit(f"{f.name}[x, y] = {v.code}")
        else:
            src = self.pick([s for s in sources if not s.code.startswith("hl.")] or sources)
            read = src.code.replace("x", "x + r.x", 1) if "[x" in src.code else src.code
            e = self.to_type(t, Val(read.replace(", y", ", y + r.y", 1), src.type, src.lo,
                                    src.hi, src.exact))
            if e is None:
                return
            self.emit('r = hl.RDom([hl.Range(-1, 3), hl.Range(0, 2)], "r")')
            if kind == "rdom":
                v = self.wrap(t, me.lo + 6 * min(e.lo, 0), me.hi + 6 * max(e.hi, 0),
                              f"{me.code} + {e.code}", me.exact and e.exact)
                if v is None:
                    self.lines.pop()
                    return
            else:
                v = Val(f"hl.max({me.code}, {e.code})", t, max(me.lo, e.lo), max(me.hi, e.hi),
                        me.exact and e.exact)
            self.emit(f"{f.name}[x, y] = {v.code}")
        f.value = Val(f.name, t, v.lo, v.hi, v.exact)
        f.updated = True
        self.features.add("update")

    # -- schedules -------------------------------------------------------------------------

    def schedule(self, funcs: list[FuncInfo]) -> None:
        out = funcs[-1]
        out.where = "output"
        if self.gpu:
            self.gpu_schedule(out, funcs)
        else:
            self.loop_schedule(out, output=True)
        # consumers first, so producers can be computed at the consumer's final loops
        for producer, consumer in zip(reversed(funcs[:-1]), reversed(funcs[1:])):
            nest = not consumer.updated and consumer.where != "inline"
            choices = ["inline", "root", "at", "at"] if nest else ["inline", "root"]
            if producer.updated or producer.dims == 1:
                choices = [c for c in choices if c != "inline"]
            where = self.pick(choices)
            if where == "root":
                producer.where = "root"
                self.emit(f"{producer.name}.compute_root()")
            elif where == "at":
                level = self.pick(consumer.loops)
                producer.where = "at " + level
                self.emit(f"{producer.name}.compute_at({consumer.name}, {var(level)})")
                outer = consumer.loops[consumer.loops.index(level):]
                store = self.pick(outer + ["root", level, level])
                if store == "root":
                    self.emit(f"{producer.name}.store_root()")
                elif store != level:
                    self.emit(f"{producer.name}.store_at({consumer.name}, {var(store)})")
            if where != "inline" and producer.dims == 2:
                if self.gpu and where == "root":
                    self.gpu_schedule(producer, funcs)
                elif self.gpu:
                    if producer.where in ("at xo", "at yo") and self.chance(0.6) and \
                            not producer.updated:
                        # at a block loop, with threads of its own (workgroup memory)
                        self.emit(f"{producer.name}.gpu_threads(x, y)")
                else:
                    self.loop_schedule(producer, output=False)

    def loop_schedule(self, f: FuncInfo, output: bool) -> None:
        """Splits, tiles, vectorize, unroll, parallel, reorder and fuse on f's pure stage (and
        on its update stages' pure variables)."""
        tails = TAILS
        loops = ["x", "y"]
        vectorized: set[str] = set()
        for v in self.rng.sample(["x", "y"], 2):
            choice = self.pick(["none", "split", "vectorize", "unroll", "parallel", "tile"])
            tail = self.pick(tails)
            factor = self.pick([1, 2, 3, 4, 8, 16])
            if v not in loops:  # tiled already
                continue
            if choice == "split" and v not in vectorized:
                inner = v + "i"
                self.emit(f"{f.name}.split({var(v)}, {var(v)}, {var(inner)}, {factor}, "
                          f"hl.TailStrategy.{tail})")
                loops.insert(loops.index(v), inner)
            elif choice == "vectorize" and v == "x":
                inner = "xv"
                self.emit(f"{f.name}.vectorize({var(v)}, {self.pick([2, 4, 8, 16])}, "
                          f"hl.TailStrategy.{tail})")
                loops.insert(loops.index(v), inner)  # (Halide names it x.v; not a target)
                vectorized.add(inner)
            elif choice == "unroll" and v not in vectorized:
                self.emit(f"{f.name}.unroll({var(v)}, {self.pick([2, 3])}, "
                          f"hl.TailStrategy.{tail})")
                loops.insert(loops.index(v), v + "u")
                vectorized.add(v + "u")
            elif choice == "parallel":
                if self.chance(0.5):
                    self.emit(f"{f.name}.parallel({var(v)})")
                else:
                    inner = v + "p"
                    self.emit(f"{f.name}.split({var(v)}, {var(v)}, {var(inner)}, {factor}, "
                              f"hl.TailStrategy.{tail}).parallel({var(v)})")
                    loops.insert(loops.index(v), inner)
            elif choice == "tile" and "xi" not in loops and "yi" not in loops and \
                    loops == ["x", "y"]:
                fx, fy = self.pick([2, 4, 8]), self.pick([2, 3, 4])
                self.emit(f'{f.name}.tile(x, y, {var("xo")}, {var("yo")}, {var("xi")}, '
                          f'{var("yi")}, {fx}, {fy}, hl.TailStrategy.{tail})')
                loops = ["xi", "yi", "xo", "yo"]
                if self.chance(0.5):
                    self.emit(f'{f.name}.vectorize({var("xi")})' if fx > 1 else "pass")
                    vectorized.add("xi")
        # names vectorize and unroll made are not loops a user can name in both libraries
        loops = [lp for lp in loops if lp not in ("xv", "xu", "yu")]
        if self.chance(0.3) and len(loops) > 1:
            order = [lp for lp in loops if lp not in vectorized]
            fixed = [lp for lp in loops if lp in vectorized]
            self.rng.shuffle(order)
            loops = fixed + order
            self.emit(f"{f.name}.reorder({', '.join(var(lp) for lp in loops)})")
        elif loops == ["x", "y"] and self.chance(0.15):
            self.emit(f'{f.name}.fuse(x, y, {var("xy")})')
            loops = ["xy"]
        f.loops = loops
        if f.updated:
            self.emit(f"{f.name}.update(0).{self.update_schedule()}")

    def update_schedule(self) -> str:
        choice = self.pick(["vectorize(x, 4)", "parallel(y)", "unroll(x, 2)",
                            'split(y, y, hl.Var("yi"), 4, hl.TailStrategy.GuardWithIf)',
                            "vectorize(x, 8, hl.TailStrategy.GuardWithIf)"])
        return choice

    def gpu_schedule(self, f: FuncInfo, funcs) -> None:
        tx, ty = self.pick([1, 4, 8, 16]), self.pick([1, 2, 4, 8])
        tail = self.pick(TAILS[:3] if f.where == "output" else TAILS)
        kind = self.pick(["tile", "tile", "blocks_threads"])
        if kind == "tile":
            self.emit(f'{f.name}.gpu_tile(x, y, {var("xo")}, {var("yo")}, {var("xi")}, '
                      f'{var("yi")}, {tx}, {ty}, hl.TailStrategy.{tail})')
            f.loops = ["xi", "yi", "xo", "yo"]
        else:
            self.emit(f'{f.name}.split(x, {var("xo")}, {var("xi")}, {tx}, '
                      f'hl.TailStrategy.{tail}).gpu_blocks({var("xo")}, y)'
                      f'.gpu_threads({var("xi")})')
            f.loops = ["xi", "xo", "y"]
        if f.updated:
            self.emit(f'{f.name}.update(0).gpu_tile(x, y, {var("uxo")}, {var("uyo")}, '
                      f'{var("uxi")}, {var("uyi")}, {tx}, {ty}, hl.TailStrategy.GuardWithIf)')


def offset(v: str, d: int) -> str:
    return v if d == 0 else f"{v} + {d}" if d > 0 else f"{v} - {-d}"


def var(name: str) -> str:
    return name if name in ("x", "y") else f'hl.Var("{name}")'


def generate(seed: int, gpu: bool = False) -> Program:
    """The random Program of `seed` (the same on every run and machine)."""
    return PipelineGenerator(seed, gpu).program()
