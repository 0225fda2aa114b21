"""Generic traversal of IR: children of a node, a pre-order walk, and substitution."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

from webhal.ir import nodes as ir
from webhal.ir.stmt import Stmt

_NODE_TYPES = (ir.Expr, Stmt)
# Annotations of fields that never hold a node: children() and rebuild() skip them.
_LEAF_FIELDS = frozenset({"str", "int", "float", "bool", "Type", "ForType", "DeviceAPI",
                          "CallType", "tuple[int, int] | None"})
# type -> (its field names, in order; the names of those that may hold nodes)
_PLANS: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _is_node(v) -> bool:
    return isinstance(v, _NODE_TYPES)


def _plan(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    plan = _PLANS.get(cls)
    if plan is None:
        fields = dataclasses.fields(cls)
        plan = (tuple(f.name for f in fields),
                tuple(f.name for f in fields if str(f.type) not in _LEAF_FIELDS))
        _PLANS[cls] = plan
    return plan


def _fields(node) -> tuple[str, ...]:
    return _plan(type(node))[0]


def children(node) -> list:
    """The nodes directly under node, in field order (a list)."""
    plan = _PLANS.get(type(node)) or _plan(type(node))
    out = []
    for name in plan[1]:
        value = getattr(node, name)
        if isinstance(value, _NODE_TYPES):
            out.append(value)
        elif isinstance(value, tuple):
            for v in value:
                if isinstance(v, _NODE_TYPES):
                    out.append(v)
                elif isinstance(v, tuple):  # Realize bounds: ((min, extent), ...)
                    out.extend(w for w in v if isinstance(w, _NODE_TYPES))
    return out


# type -> (its fields annotated str; those that may hold nodes: _plan's)
_STRING_PLANS: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def strings_and_children(node) -> tuple[list[str], list]:
    """node's strings (its str fields, and a string held directly by another field or in a
    tuple field, as a GPU launch's buffer names) and children(node): what a search for the
    names a subtree mentions looks at, in one pass over the fields."""
    cls = type(node)
    plan = _STRING_PLANS.get(cls)
    if plan is None:
        plan = _STRING_PLANS[cls] = (
            tuple(f.name for f in dataclasses.fields(cls) if str(f.type) == "str"),
            (_PLANS.get(cls) or _plan(cls))[1])
    strings, out = [], []
    for name in plan[0]:
        value = getattr(node, name)
        if isinstance(value, str):
            strings.append(value)
    for name in plan[1]:
        value = getattr(node, name)
        if isinstance(value, _NODE_TYPES):
            out.append(value)
        elif isinstance(value, str):
            strings.append(value)
        elif isinstance(value, tuple):
            for v in value:
                if isinstance(v, _NODE_TYPES):
                    out.append(v)
                elif isinstance(v, str):
                    strings.append(v)
                elif isinstance(v, tuple):  # Realize bounds: ((min, extent), ...)
                    out.extend(w for w in v if isinstance(w, _NODE_TYPES))
    return strings, out


def per_node(maxsize: int = 4096):
    """Cache a function of one IR node by the node's identity. Nodes are immutable, so a node
    always gives the same answer; the cache keeps the node alive, so its id cannot be reused
    while cached. For work redone on every realize (fingerprints, input lists)."""
    def decorate(fn):
        cache: dict[int, tuple] = {}

        def cached(node):
            hit = cache.get(id(node))
            if hit is not None and hit[0] is node:
                return hit[1]
            value = fn(node)
            if len(cache) >= maxsize:
                cache.pop(next(iter(cache)))
            cache[id(node)] = (node, value)
            return value
        cached.__doc__, cached.__name__ = fn.__doc__, fn.__name__
        return cached
    return decorate


def walk(node) -> Iterator:
    """Every node under `node`, itself first."""
    stack = [node]
    pop, extend = stack.pop, stack.extend
    while stack:
        n = pop()
        yield n
        below = children(n)
        if below:
            below.reverse()
            extend(below)


def _apply_tuple(value: tuple, fn: Callable) -> tuple:
    new = tuple(fn(w) if isinstance(w, _NODE_TYPES) else
                _apply_tuple(w, fn) if isinstance(w, tuple) else w for w in value)
    return value if all(a is b for a, b in zip(new, value)) else new


def rebuild(node, fn: Callable):
    """`node` with fn applied to each child; the same object when nothing changed."""
    cls = type(node)
    names, child_names = _PLANS.get(cls) or _plan(cls)
    changes = None
    for name in child_names:
        value = getattr(node, name)
        if isinstance(value, _NODE_TYPES):
            new = fn(value)
        elif isinstance(value, tuple):
            new = _apply_tuple(value, fn)
        else:
            continue
        if new is not value:
            if changes is None:
                changes = {}
            changes[name] = new
    if changes is None:
        return node
    return cls(*[changes[n] if n in changes else getattr(node, n) for n in names])


def substitute(node, replacements: dict[str, ir.Expr]):
    """Replace free Variables by name (Let-bound names shadow)."""
    def go(n, shadow: frozenset):
        if isinstance(n, ir.Variable):
            return replacements.get(n.name, n) if n.name not in shadow else n
        if isinstance(n, ir.Let) or type(n).__name__ == "LetStmt":
            value = go(n.value, shadow)
            body = go(n.body, shadow | {n.name})
            if value is n.value and body is n.body:
                return n
            return type(n)(n.name, value, body)
        return rebuild(n, lambda c: go(c, shadow))
    return go(node, frozenset())


_NAMES: dict[int, tuple[object, frozenset]] = {}  # node id -> (node, names under it)


def variable_names(node) -> frozenset:
    """The names of the Variables under node (bound by a Let or not), memoized by node: the
    analyses ask this of the same subtrees level after level, which fresh walks would visit
    once per level."""
    hit = _NAMES.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    if isinstance(node, ir.Variable):
        names = frozenset((node.name,))
    else:
        names = frozenset().union(*(variable_names(c) for c in children(node)))
    if len(_NAMES) > 500_000:
        _NAMES.clear()
    _NAMES[id(node)] = (node, names)
    return names


def free_variables(node) -> list[ir.Variable]:
    seen: dict[str, ir.Variable] = {}
    for n in walk(node):
        if isinstance(n, ir.Variable) and n.name not in seen:
            seen[n.name] = n
    return list(seen.values())


def calls(node, call_type: ir.CallType | None = None) -> list[ir.Call]:
    return [n for n in walk(node) if isinstance(n, ir.Call)
            and (call_type is None or n.call_type is call_type)]
