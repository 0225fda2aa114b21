"""Generic traversal of IR: children of a node, a pre-order walk, and substitution."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

from webhal.ir import nodes as ir

_NODE_TYPES: tuple = ()
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _is_node(v) -> bool:
    global _NODE_TYPES
    if not _NODE_TYPES:
        from webhal.ir.stmt import Stmt
        _NODE_TYPES = (ir.Expr, Stmt)
    return isinstance(v, _NODE_TYPES)


def _fields(node) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(type(node))
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(node))
        _FIELD_NAMES[type(node)] = names
    return names


def children(node) -> Iterator:
    for name in _fields(node):
        value = getattr(node, name)
        if _is_node(value):
            yield value
        elif isinstance(value, tuple):
            for v in value:
                if _is_node(v):
                    yield v
                elif isinstance(v, tuple):  # Realize bounds: ((min, extent), ...)
                    yield from (w for w in v if _is_node(w))


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
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(list(children(n))))


def rebuild(node, fn: Callable):
    """`node` with fn applied to each child; the same object when nothing changed."""
    changes = {}

    def apply(v):
        if _is_node(v):
            return fn(v)
        if isinstance(v, tuple):
            new = tuple(apply(w) for w in v)
            return v if all(a is b for a, b in zip(new, v)) else new
        return v

    for name in _fields(node):
        value = getattr(node, name)
        new = apply(value)
        if new is not value:
            changes[name] = new
    return dataclasses.replace(node, **changes) if changes else node


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
