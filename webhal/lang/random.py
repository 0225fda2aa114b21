"""hl.random_float, hl.random_int and hl.random_uint: Halide's pseudo-random numbers, a fixed
hash of their arguments (so pure, and the same on every target).

As in Halide, each call gets an id from a counter, and each definition of a Func (pure or
update) a tag from another; the definition replaces each call by the hash of (seed if given,
id, tag, the definition's Vars and RVars last to first), so two calls, two definitions or two
points differ. With the same program in a fresh process, the counters and so the numbers match
Halide's; definitions that webhal or Halide make internally (rfactor, wrappers, adjoints) take no
tag in webhal, so programs mixing those with random numbers may give other numbers than Halide.
"""

from __future__ import annotations

import itertools

from webhal.errors import CompileError, user_location
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir.function import Definition
from webhal.ir.types import Float, Int, Type, UInt
from webhal.ir.visitor import rebuild, walk
from webhal.lang.expr import Expr, to_node
from webhal.lang.names import unique_name

_call_ids = itertools.count()     # Halide's random_number_counter
_definition_tags = itertools.count()  # Halide's random_variable_counter

_RANDOM = "webhal.random"  # the call's name until its definition replaces it
_C0, _C1, _C2 = 576942909, 1121052041, 1040796640  # Halide's rng32 constants


def random_float(seed=None) -> Expr:
    """A float32 in [0, 1], a fixed function of the point, the seed and this call."""
    return _random(Float(32), seed, "random_float", (Int(32),))


def random_uint(seed=None) -> Expr:
    """A uint32, a fixed function of the point, the seed and this call."""
    return _random(UInt(32), seed, "random_uint", (Int(32), UInt(32)))


def random_int(seed=None) -> Expr:
    """An int32 (random_uint's bits), a fixed function of the point, the seed and this call."""
    return _random(Int(32), seed, "random_int", (Int(32), UInt(32)))


def _random(t: Type, seed, what: str, seed_types) -> Expr:
    args = []
    if seed is not None:
        s = to_node(seed)
        if s.type not in seed_types:
            raise CompileError(f"the seed of {what} must be "
                               f"{' or '.join(str(x) for x in seed_types)}, not {s.type}",
                               user_location())
        args.append(s)
    args.append(ir.IntImm(Int(32), next(_call_ids)))
    return Expr(ir.Call(t, _RANDOM, tuple(args), ir.CallType.PURE_EXTERN))


def lower_random(fn, stage: int) -> None:
    """Give definition `stage` of Function fn its tag and replace its random calls by their
    hashes (see the module's docstring)."""
    tag = next(_definition_tags)
    d: Definition = fn.definitions[stage]
    if stage == 0:
        free_vars = list(d.args)
    else:  # an update: the Vars standing at their own position, then the RVars
        free_vars = [a for a, name in zip(d.args, fn.pure_args)
                     if isinstance(a, ir.Variable) and a.rdom is None and a.param is None
                     and a.name == name]
        if d.rdom is not None:
            free_vars += [ir.Variable(Int(32), d.rdom.var_name(i), rdom=d.rdom)
                          for i in range(len(d.rdom.mins))]
    if not any(isinstance(n, ir.Call) and n.name == _RANDOM
               for e in (*d.args, *d.values) for n in walk(e)):
        return
    extra = [ir.IntImm(Int(32), tag), *reversed(free_vars)]

    def replace(node):
        node = rebuild(node, replace)
        if isinstance(node, ir.Call) and node.name == _RANDOM:
            return _hashed(node.type, [*node.args, *extra])
        return node

    d.args = tuple(replace(a) for a in d.args)
    d.values = tuple(replace(v) for v in d.values)
    if d.rdom is not None:
        d.rdom.predicates = [replace(p) for p in d.rdom.predicates]


def _hashed(t: Type, args: list[ir.Expr]) -> ir.Expr:
    def rng32(x: Expr) -> Expr:
        return (x * _C2 + _C1) * x + _C0

    u32 = UInt(32)
    result = rng32(Expr(ir.Cast(u32, args[0]) if args[0].type != u32 else args[0]))
    for e in args[1:]:
        name = unique_name("R")
        step = result + Expr(ir.Cast(u32, e) if e.type != u32 else e)
        body = rng32(Expr(ir.Variable(u32, name)))
        result = Expr(ir.Let(name, step.node(), body.node()))
    result = result ^ (result >> 16)
    if t == u32:
        return result.node()
    if t == Int(32):
        return ir.Reinterpret(Int(32), result.node())
    bits = Expr(ops.const(127 << 23, u32)) | (result >> 9)
    f = Expr(ir.Reinterpret(Float(32), bits.node())) - 1.0
    from webhal.lang.functions import clamp
    return clamp(f, 0.0, 1.0).node()
