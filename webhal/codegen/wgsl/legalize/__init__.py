"""Legalization: IR-to-IR passes that rewrite a kernel into what a GPU language can say, run
before the language's printer. Each pass works around one thing the language lacks and knows
nothing of its text, so another GPU backend (SPIR-V) runs the ones it needs; `Lacks` says
which.

With HL_DEBUG_CODEGEN set to 2 or more the kernel body is printed after each pass (with
"(unchanged)" when the pass returned it as it was), with 1 or more the time each took."""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass

from webhal.codegen.wgsl.legalize.arguments import arguments_as_words
from webhal.codegen.wgsl.legalize.cse import common_subexpressions
from webhal.codegen.wgsl.legalize.guards import hoist_guards
from webhal.codegen.wgsl.legalize.lets import lets_to_statements
from webhal.codegen.wgsl.legalize.names import Names
from webhal.codegen.wgsl.legalize.pack_storage import pack_storage
from webhal.codegen.wgsl.legalize.scalarize import scalarize
from webhal.codegen.wgsl.legalize.shifts import legalize_shifts
from webhal.codegen.wgsl.legalize.widen_integers import register_type, widen_integers
from webhal.debug import debug_level
from webhal.ir import stmt as st
from webhal.ir.module import Kernel
from webhal.ir.printer import stmt_to_string


@dataclass(frozen=True)
class Lacks:
    """What a GPU language lacks. WGSL, as webhal prints it, lacks all of these."""

    vectors: bool = True            # vector types (the printer would print lanes otherwise)
    let_expressions: bool = True    # expressions that bind a name
    narrow_storage: bool = True     # 8/16-bit integer elements in storage buffers
    narrow_integers: bool = True    # 8/16-bit integer arithmetic
    narrow_arguments: bool = True   # scalar arguments other than 32-bit ones


WGSL = Lacks()


def legalize(kernel: Kernel, lacks: Lacks, packed: Collection[str] = (),
             vector: dict[str, int] | None = None) -> Kernel:
    """kernel rewritten for a language that lacks `lacks`; `packed` names the buffers of
    8/16-bit integers that are stored as 32-bit words (with `narrow_storage`); `vector` the
    buffers whose accesses stay whole vectors of the width given (see scalarize)."""
    names = Names(kernel.body)
    passes: list[tuple[str, Callable[[st.Stmt], st.Stmt]]] = [("hoist_guards", hoist_guards)]
    if lacks.vectors:
        passes.append(("scalarize", lambda s: scalarize(s, names, vector)))
    if lacks.let_expressions:
        passes.append(("lets_to_statements", lambda s: lets_to_statements(s, names)))
    if lacks.narrow_storage and packed:
        passes.append(("pack_storage", lambda s: pack_storage(s, packed, names)))
    if lacks.narrow_integers:
        passes.append(("widen_integers", lambda s: widen_integers(s, names)))
    passes.append(("legalize_shifts", lambda s: legalize_shifts(s, names)))
    passes.append(("common_subexpressions", lambda s: common_subexpressions(s, names)))
    if lacks.narrow_arguments:
        kernel = _logged(kernel, "arguments_as_words", arguments_as_words(kernel))
    body = kernel.body
    for name, fn in passes:
        t0 = time.perf_counter()
        body = _logged(kernel, name, fn(body), body, time.perf_counter() - t0)
    memory = {}
    if lacks.narrow_integers:  # workgroup and local arrays hold one register per element
        memory = {f: {n: (register_type(t), size) for n, (t, size) in getattr(kernel, f).items()}
                  for f in ("shared", "local")}
    return dataclasses.replace(kernel, body=body, **memory)


def _logged(kernel: Kernel, name: str, new, old=None, seconds: float | None = None):
    """new, after printing it (HL_DEBUG_CODEGEN >= 2) or the time it took (>= 1)."""
    level = debug_level()
    if level >= 2:
        body = new.body if isinstance(new, Kernel) else new
        unchanged = " (unchanged)" if new is (old if old is not None else kernel) else ""
        print(f"{kernel.name} after {name}{unchanged}:\n{stmt_to_string(body)}", file=sys.stderr)
    elif level >= 1 and seconds is not None:
        print(f"{kernel.name} {name}: {seconds * 1000:.1f} ms", file=sys.stderr)
    return new
