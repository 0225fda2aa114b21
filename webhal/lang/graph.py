"""The call graph of a pipeline: which Functions it has and who calls whom."""

from __future__ import annotations

from webhal.ir.function import Function


def functions_of(outputs: list[Function]) -> list[Function]:
    """Every Function the outputs depend on, producers before consumers (after pointing the
    consumers of a Func with a global wrapper, f.in_(), at the wrapper)."""
    from webhal.lang.wrappers import apply_global_wrappers
    found = _functions_of(outputs)
    while apply_global_wrappers(found):
        found = _functions_of(outputs)
    return found


def _functions_of(outputs: list[Function]) -> list[Function]:
    order: list[Function] = []
    state: dict[int, str] = {}

    def visit(fn: Function):
        s = state.get(id(fn))
        if s == "done":
            return
        if s == "active":
            return  # a Func calling itself (updates) or a cycle; realize reports cycles
        state[id(fn)] = "active"
        for callee in fn.callees():
            if isinstance(callee, Function):
                visit(callee)
        state[id(fn)] = "done"
        order.append(fn)

    for out in outputs:
        visit(out)
    return order


def consumers(functions: list[Function]) -> dict[int, list[Function]]:
    """For each Function (by id), the Functions that call it directly."""
    out: dict[int, list[Function]] = {id(f): [] for f in functions}
    for f in functions:
        for callee in f.callees():
            if isinstance(callee, Function) and id(callee) in out:
                out[id(callee)].append(f)
    return out
