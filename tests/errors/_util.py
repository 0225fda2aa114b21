"""`expect_error`: the assertion every test in tests/errors makes, so each test stays short."""

from __future__ import annotations

import inspect
import linecache
import os
import sys

import webhal as hl

REFERENCE = hl.Target("reference")

# Marks the line that made the mistake when it is not the line that raised (mistakes found only
# when the pipeline is realized, or inside a generator's generate()).
MARK = "# <- error"


class expect_error:  # noqa: N801 - reads as a function at the call site
    """`with expect_error(hl.CompileError, "Func blur", "2 arguments"): <the mistake>`

    Checks that the error is exactly `exc_type`, that its message contains every fragment, and
    that `.where` (and str(error)) give this test file and the line that made the mistake: the
    line of the test function marked `# <- error`, else the line in the block that raised.
    The error is in `.value` afterwards.
    """

    def __init__(self, exc_type: type[hl.HalideError], *fragments: str):
        self.exc_type = exc_type
        self.fragments = fragments
        self.value: hl.HalideError | None = None

    def __enter__(self) -> expect_error:
        self._code = sys._getframe(1).f_code  # the test function
        return self

    def __exit__(self, et, error, tb) -> bool:
        name = self.exc_type.__name__
        if error is None:
            raise AssertionError(f"expected hl.{name}, but nothing was raised")
        if type(error) is not self.exc_type:
            raise AssertionError(f"expected hl.{name}, got {et.__name__}: {error}") from error
        for fragment in self.fragments:
            assert fragment in error.message, \
                f"{fragment!r} is not in the message of the {name}:\n{error.message}"
        line = self._marked_line() or self._raising_line(tb)
        where = error.where
        assert where is not None, f"the {name} has no .where:\n{error}"
        assert os.path.abspath(where.filename) == os.path.abspath(self._code.co_filename), \
            f"the {name} points at {where}, not at the test file:\n{error}"
        assert where.lineno == line, f"the {name} points at line {where.lineno}, not {line}"
        source = linecache.getline(where.filename, where.lineno).strip()
        assert f"{where}\n    {source}" in str(error), \
            f"str() of the {name} lacks {where} and its source line:\n{error}"
        self.value = error
        return True

    def _marked_line(self) -> int | None:
        lines, first = inspect.getsourcelines(self._code)
        marked = [first + i for i, text in enumerate(lines) if text.rstrip().endswith(MARK)]
        assert len(marked) <= 1, f"{self._code.co_name} marks {len(marked)} lines with {MARK!r}"
        return marked[0] if marked else None

    def _raising_line(self, tb) -> int:
        line = None
        while tb is not None:
            if tb.tb_frame.f_code is self._code:
                line = tb.tb_lineno
            tb = tb.tb_next
        assert line is not None, "the error was not raised inside the with block"
        return line
