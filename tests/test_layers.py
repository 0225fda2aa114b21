"""webhal's modules import in one direction: down the layers of docs/architecture.md.

The table below is the layering; a module may import its own layer or a lower one, at module
level or inside a function (a lazy import defers loading, it does not change the dependency).
Module-level imports must also form no cycle.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "webhal"

# Top-level module or package of webhal -> layer (lower numbers are lower down).
LAYERS = {
    "errors": 0, "debug": 0, "abi": 0, "target": 0, "target_features": 0, "toolchain": 0,
    "ir": 1,
    "analysis": 2,
    "passes": 3, "lower": 3, "reference": 3,
    "codegen": 4,
    "runtime": 5,
    "runners": 6, "glue": 6, "aot": 6, "jit": 6,
    "lang": 7, "imageio": 7, "autoschedule": 7,
    "": 8,  # the package itself: `import webhal as hl`
    "cli": 9, "demo": 9, "demo_page": 9, "build": 9, "doctor": 9, "testing": 9,
    "webcam_page": 9,
}


def _modules() -> dict[str, pathlib.Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def layer(module: str) -> int:
    top = module.split(".")[1] if "." in module else ""
    assert top in LAYERS, f"{module} is in no layer: add webhal.{top} to LAYERS (and the docs)"
    return LAYERS[top]


def _resolve(name: str) -> str:
    """The webhal module an imported name lives in (`webhal.ir.nodes.Add` -> webhal.ir.nodes)."""
    while name not in MODULES:
        name = name.rsplit(".", 1)[0]
    return name


def imports(module: str) -> list[tuple[str, int, bool]]:
    """(imported webhal module, line, at module level) for each import in `module`."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text())
    top_level = {id(n) for n in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names = [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            if name == "webhal" or name.startswith("webhal."):
                target = _resolve(name)
                if target != module:
                    found.append((target, node.lineno, id(node) in top_level))
    return found


def test_every_import_points_down_or_across():
    upward = [f"{m}:{line} imports {t} (layer {layer(m)} -> {layer(t)})"
              for m in sorted(MODULES) for t, line, _ in imports(m) if layer(t) > layer(m)]
    assert not upward, "imports that point up a layer:\n" + "\n".join(upward)


def test_no_import_cycles():
    graph = {m: {t for t, _, top in imports(m) if top} for m in MODULES}
    done: set[str] = set()

    def visit(m: str, path: list[str]) -> None:
        if m in path:
            pytest.fail("import cycle: " + " -> ".join(path[path.index(m):] + [m]))
        if m in done:
            return
        for t in sorted(graph[m]):
            visit(t, path + [m])
        done.add(m)

    for m in sorted(graph):
        visit(m, [])


def test_the_checker_sees_imports():
    # The checker itself: these imports are known to exist.
    assert ("webhal.ir.nodes", True) in {(t, top) for t, _, top in imports("webhal.ir.ops")}
    assert layer("webhal.ir.nodes") < layer("webhal.lang.func")
