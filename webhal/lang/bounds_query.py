"""Halide's bounds query, as infer_input_bounds runs it: the region of each output and of each
unbound input that realizing the outputs over given regions needs, with the dim() constraints
of ImageParams and output buffers applied.

One pass, from a region per output: each output's region becomes what the compiled pipeline
writes of it (larger than asked where a split, a vector or a RoundUp tail rounds it up), each
input's what it reads; then every constrained min or extent is replaced by its constraint,
evaluated with every buffer's fields at those regions. Constraints can depend on each other
(an output's extent on itself, an input's on the output's), so passes repeat until no region
changes, as Halide's do, for at most MAX_PASSES.
"""

from __future__ import annotations

from webhal.analysis.boxes import boxes_provided, boxes_required, leading_lets
from webhal.errors import BufferError, CompileError
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir.printer import short_string
from webhal.ir.visitor import walk

MAX_PASSES = 16  # Halide's limit too

Region = list[tuple[int, int]]  # (min, extent) per dimension


def infer_regions(outputs, functions, target, regions: dict[str, Region], where,
                  assumed: dict[str, Region] | None = None
                  ) -> tuple[dict[str, Region], dict[str, Region]]:
    """(outputs' regions, unbound inputs' regions) that realizing `outputs` (Functions) over
    `regions` (output name -> Region) needs, constraints applied, at a fixed point. `assumed`
    gives unbound inputs a first region, for a region read that depends on the input's own size
    (a reduction over all of it; `webhal test` sizes such inputs so), which Halide's query
    refuses."""
    from webhal.lower import _up_to_buffer_checks, _value

    s, images, params = _up_to_buffer_checks(outputs, functions, target)
    lets, s = leading_lets(s)  # evaluated in order below, not spelled out in the boxes
    written = boxes_provided(s, {fn.name for fn in outputs})
    read = boxes_required(s, set(images))
    unbound = {n for n, im in images.items() if hasattr(im, "set") and im.get() is None}
    known: dict[str, ir.Expr] = {}
    for name, param in params.items():
        if param.get() is not None:
            known[name] = ops.const(param.get(), param.type())
    for name, image in images.items():
        if name in unbound:
            continue
        b = image.get() if hasattr(image, "set") else image
        for d in range(b.dimensions()):
            known[f"{name}.stride.{d}"] = ops.const(b.dim(d).stride())
        _fields(known, name, [(b.dim(d).min(), b.dim(d).extent()) for d in range(b.dimensions())])
    for name, region in (assumed or {}).items():
        if name in unbound:
            _fields(known, name, region)
    constraints = {fn.name: fn.output_constraints for fn in outputs}
    constraints.update({n: getattr(images[n], "_constraints", {}) for n in unbound})

    def evaluate(e: ir.Expr, at: dict[str, ir.Expr], what: str) -> int:
        v = _value(e, at)
        if not isinstance(v, ir.IntImm):
            unknown = ", ".join(sorted({n.name for n in walk(v)
                                        if isinstance(n, ir.Variable)})[:4]) or "an expression"
            shown = "" if isinstance(v, ir.Variable) else f" ({short_string(v)})"
            raise CompileError(f"bounds query: {what} depends on {unknown}{shown}, which it "
                               "does not know (an unbound ImageParam's size, or a Param without "
                               "a value)", where)
        return v.value

    outs = {n: list(r) for n, r in regions.items()}
    ins: dict[str, Region] = {}
    for _ in range(MAX_PASSES):
        at = dict(known)
        for name, region in [*outs.items(), *ins.items()]:
            _fields(at, name, region)
        for name, value in lets:
            at[name] = _value(value, at)
        new_outs, new_ins = {}, {}
        for fn in outputs:
            region = outs[fn.name]
            if fn.name in written:
                region = []
                for d, iv in enumerate(written[fn.name]):
                    if not iv.is_bounded():
                        region.append(outs[fn.name][d])
                        continue
                    lo = evaluate(iv.min, at, f"where {fn.name} is written in dimension {d}")
                    hi = evaluate(iv.max, at, f"where {fn.name} is written in dimension {d}")
                    region.append((lo, max(0, hi - lo + 1)))
            new_outs[fn.name] = region
        for name in sorted(unbound):
            if name not in read:
                continue
            region = []
            for d, iv in enumerate(read[name]):
                if not iv.is_bounded():
                    raise CompileError(f"{name} is read without a bound in dimension {d}; clamp "
                                       "the coordinates (hl.clamp or BoundaryConditions)", where)
                lo = evaluate(iv.min, at, f"the region of {name} read in dimension {d}")
                hi = evaluate(iv.max, at, f"the region of {name} read in dimension {d}")
                region.append((lo, max(0, hi - lo + 1)))
            new_ins[name] = region
        required = dict(known)
        for name, region in [*new_outs.items(), *new_ins.items()]:
            _fields(required, name, region)
        for group in (new_outs, new_ins):
            for name, region in group.items():
                group[name] = _constrained(name, region, constraints.get(name, {}), required,
                                           evaluate)
        if new_outs == outs and new_ins == ins:
            return outs, ins
        outs, ins = new_outs, new_ins
    raise BufferError(f"Inferring input bounds didn't converge after {MAX_PASSES} passes: the "
                      "dim() constraints of " + ", ".join(sorted(constraints)) + " may not be "
                      "satisfiable together (each pass changed a region)", where)


def _constrained(name: str, region: Region, constraints: dict, required: dict, evaluate
                 ) -> Region:
    """A buffer's region with its constrained mins and extents replaced by their values."""
    out = []
    for d, (lo, extent) in enumerate(region):
        c_min, c_extent = constraints.get(("min", d)), constraints.get(("extent", d))
        if c_min is not None:
            lo = evaluate(c_min, required, f"the constraint on {name}.dim({d}).min()")
        if c_extent is not None:
            extent = evaluate(c_extent, required, f"the constraint on {name}.dim({d}).extent()")
        out.append((lo, extent))
    return out


def _fields(known: dict[str, ir.Expr], name: str, region: Region) -> None:
    """A buffer's min, extent and (dense) stride symbols at `region`."""
    stride = 1
    for d, (lo, extent) in enumerate(region):
        known[f"{name}.min.{d}"] = ops.const(int(lo))
        known[f"{name}.extent.{d}"] = ops.const(int(extent))
        known.setdefault(f"{name}.stride.{d}", ops.const(stride))
        stride *= max(1, int(extent))
