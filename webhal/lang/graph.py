"""The call graph of a pipeline: which Functions it has and who calls whom."""

from __future__ import annotations

from webhal.ir.function import Function


def functions_of(outputs: list[Function]) -> list[Function]:
    """Every Function the outputs depend on, producers before consumers (after pointing the
    consumers of a Func with a global wrapper, f.in_(), at the wrapper), each with a name of
    its own (distinct_names)."""
    from webhal.lang.wrappers import apply_global_wrappers
    found = _functions_of(outputs)
    while apply_global_wrappers(found):
        found = _functions_of(outputs)
    distinct_names(found, outputs)
    return found


def distinct_names(order: list[Function], outputs: list[Function]) -> None:
    """Rename Functions of one pipeline that share a name (a helper that makes
    `hl.Func("downx")` per pyramid level, as Halide's local Laplacian does): lowering keys
    buffers, bounds and loops by name, so two Funcs of one name would read each other's.
    Halide renames a Func as it is made (`downx$1`); here the outputs and then the first in
    producer order keep the name and the others become name$1, name$2, ... when a pipeline
    first gathers them, so that names do not depend on what else the process has built."""
    from webhal.lang.wrappers import redirect, redirect_definitions
    by_name: dict[str, list[Function]] = {}
    for fn in order:
        by_name.setdefault(fn.name, []).append(fn)
    if all(len(fns) == 1 for fns in by_name.values()):
        return
    taken = set(by_name)
    renamed: list[Function] = []
    for name, fns in by_name.items():
        keeper = next((f for f in fns if any(f is o for o in outputs)), fns[0])
        k = 1
        for fn in fns:
            if fn is keeper:
                continue
            while f"{name}${k}" in taken:
                k += 1
            fn.name = f"{name}${k}"
            taken.add(fn.name)
            renamed.append(fn)
    for fn in order:  # every call of a renamed Function carries its new name
        for r in renamed:
            if r is fn or any(c is r for c in fn.callees()):
                redirect_definitions(fn, r, r)
                for d in fn.definitions:
                    if d.rdom is not None:
                        d.rdom.predicates = [redirect(p, r, r) for p in d.rdom.predicates]


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
