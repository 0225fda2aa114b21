"""runtime_js/'s own unit tests (`node --test runtime_js/test`), run by the test command."""

import pathlib

from webhal.runners.node import run_node

TESTS = pathlib.Path(__file__).resolve().parents[2] / "runtime_js" / "test"


def test_runtime_js_unit_tests(node):
    files = sorted(str(p) for p in TESTS.glob("*.test.js"))
    assert files, f"no tests in {TESTS}"
    result = run_node(files[0], files[1:], node_args=["--test"], what="node --test runtime_js")
    assert "# fail 0" in result.stdout, result.stdout
