"""8- and 16-bit buffer elements packed into 32-bit words, for a language whose storage buffers
hold 32-bit elements only (WGSL: no 8/16-bit integer types at all).

Element i of a packed buffer lives in word i >> log2(k) at bit (i & (k - 1)) * bits, k elements
a word, and loads read it from there. Invocations may share a word, so a store changes only its
own element's bits with two atomic operations: `atomic_and(buffer, word, ~mask)` then
`atomic_or(buffer, word, bits)`, Calls of the names below whose first argument is the buffer's
name (a StringImm). A language that prints them must declare those words atomic.

Stores of consecutive elements whose values are already computed (as the lanes of a vector
store are after scalarize) are also written as whole words, plainly, when the first element
starts a word; otherwise as those words shifted across one more word, whose first and last are
shared (two atomic operations each, as for one element) and the others written whole. After
this pass, a packed buffer's Loads and plain Stores are of UInt(32) words.

Loads of one element read one name for its index: within a statement, and in the statements
nested in the one that bound it when the index reads no memory (a pure function of names
already bound). Their word loads are then equal expressions, which common_subexpressions
computes once (the bilateral grid's histogram read its sample five times a point: for the
bin it adds to, the value it adds, and the bin it loads the sum from)."""

from __future__ import annotations

from collections.abc import Collection

from webhal.codegen.wgsl.legalize.names import Bindings, Names, is_trivial, structural_key
from webhal.codegen.wgsl.legalize.nodes import intrinsic, is_narrow, reads_memory
from webhal.codegen.wgsl.legalize.rewriter import Rewriter
from webhal.errors import CompileError
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.types import Int, Type, UInt
from webhal.ir.visitor import rebuild, walk

ATOMIC_AND = "atomic_and"
ATOMIC_OR = "atomic_or"

U32, I32 = UInt(32), Int(32)


def _reads(e: ir.Expr | None, name: str) -> bool:
    return e is not None and any(isinstance(n, ir.Variable) and n.name == name for n in walk(e))


def pack_storage(body: st.Stmt, packed: Collection[str], names: Names | None = None) -> st.Stmt:
    """body with the buffers named in `packed` (of 8/16-bit integers) read and written as
    32-bit words."""
    return _Pack(names or Names(body), frozenset(packed)).stmt(body)


class _Layout:
    """Where element `index` of a buffer of narrow type t lives."""

    def __init__(self, t: Type, index: ir.Expr):
        self.t = t
        self.per_word = 32 // t.bits
        shift = self.per_word.bit_length() - 1
        self.word = intrinsic(I32, "shift_right", index, ops.const(shift))
        lane = intrinsic(I32, "bitwise_and", index, ops.const(self.per_word - 1))
        self.bit = ir.Mul(ir.Cast(U32, lane), ops.const(t.bits, U32))
        self.mask = ops.const((1 << t.bits) - 1, U32)

    def bits_of(self, value: ir.Expr) -> ir.Expr:
        """value's bits, zero-extended to a word."""
        if self.t.is_int():
            value = ir.Reinterpret(UInt(self.t.bits), value)
        return ir.Cast(U32, value)


class _Pack(Rewriter):
    def __init__(self, names: Names, packed: frozenset[str]):
        super().__init__(names)
        self.packed = packed
        # structural key of an index -> (the name it is bound to, whether it reads no memory,
        # the names it reads): those of the statement being rewritten and, when they read no
        # memory, of the statements around it
        self.shared: dict = {}
        # name -> (base, constant offset) of a variable of type Int(32) bound to base + offset
        # around the statement being rewritten (base reading no memory), so that indices
        # written from different names (t + 2, and u + 1 where u = t + 1) compare equal
        self.offsets: dict = {}

    def stmt(self, s: st.Stmt) -> st.Stmt:
        outer, outer_offsets = self.shared, self.offsets
        self.shared = {k: v for k, v in outer.items() if v[1]}
        self.offsets = dict(outer_offsets)
        try:
            if isinstance(s, st.LetStmt | st.For):
                self.forget(s.name)
            if isinstance(s, st.LetStmt) and s.value.type == I32 and not reads_memory(s.value):
                base, offset = self.canonical(s.value)
                if not _reads(base, s.name):
                    self.offsets[s.name] = (base, offset)
            return super().stmt(s)
        finally:
            self.shared, self.offsets = outer, outer_offsets

    def forget(self, name: str) -> None:
        """Drop what `name`, bound again inside, changes."""
        self.shared = {k: v for k, v in self.shared.items() if name not in v[2]}
        self.offsets = {k: (b, o) for k, (b, o) in self.offsets.items()
                        if k != name and not _reads(b, name)}

    def canonical(self, e: ir.Expr) -> tuple[ir.Expr | None, int]:
        """e as (base, offset), through the variables of `offsets`."""
        base, offset = ops.split_offset(e)
        while isinstance(base, ir.Variable) and base.name in self.offsets:
            base, more = self.offsets[base.name]
            offset += more
        return base, offset

    def index(self, e: ir.Expr, b: Bindings) -> ir.Expr:
        """A name for index e (rewritten already), the one given to an equal index before
        when there is one in scope."""
        pure = e.type == I32 and not reads_memory(e)
        base, offset = self.canonical(e) if pure else (e, 0)
        key = structural_key((base, offset))
        known = self.shared.get(key)
        if known is None:
            value = e if base is e else ops.add(base, ops.const(offset)) if base is not None \
                else ops.const(offset)
            name = b.bind(value, "index")
            uses = frozenset(n.name for n in walk(value) if isinstance(n, ir.Variable))
            known = self.shared[key] = (name, pure, uses)
            if pure and isinstance(name, ir.Variable):
                self.offsets[name.name] = (base, offset)
        return known[0]

    def is_packed(self, name: str, t: Type) -> bool:
        if name in self.packed and t.lanes > 1:
            raise CompileError(f"vector access to packed buffer {name}: scalarize first")
        return name in self.packed and is_narrow(t)

    def reads_packed(self, e: ir.Expr) -> bool:
        return any(isinstance(n, ir.Load) and self.is_packed(n.name, n.type) for n in walk(e))

    def expr(self, e: ir.Expr, b: Bindings) -> ir.Expr:
        return self.rewrite(e, b) if self.reads_packed(e) else e

    def rewrite(self, e: ir.Expr, b: Bindings) -> ir.Expr:
        if isinstance(e, ir.Load) and self.is_packed(e.name, e.type):
            at = _Layout(e.type, self.index(self.rewrite(e.index, b), b))
            word = ir.Load(U32, e.name, at.word)
            value = ir.Cast(UInt(e.type.bits), intrinsic(U32, "shift_right", word, at.bit))
            return ir.Reinterpret(e.type, value) if e.type.is_int() else value
        return rebuild(e, lambda c: self.rewrite(c, b))

    def store(self, s: st.Store, b: Bindings) -> st.Stmt:
        if not self.is_packed(s.name, s.value.type):
            return super().store(s, b)
        # The value first: it may read the element that the atomic_and below clears.
        value = b.bind(self.expr(s.value, b))
        index = b.bind(self.expr(s.index, b), "index")
        return self.element(s.name, value, index, b)

    def element(self, name: str, value: ir.Expr, index: ir.Expr, b: Bindings) -> st.Stmt:
        at = _Layout(value.type, index)
        word, bit = b.bind(at.word, "word"), b.bind(at.bit, "bit")
        clear = intrinsic(U32, "bitwise_not", intrinsic(U32, "shift_left", at.mask, bit))
        put = intrinsic(U32, "shift_left", at.bits_of(value), bit)
        buffer = ir.StringImm(name)
        return st.Block((st.Evaluate(intrinsic(U32, ATOMIC_AND, buffer, word, clear)),
                         st.Evaluate(intrinsic(U32, ATOMIC_OR, buffer, word, put))))

    def block(self, stmts: tuple[st.Stmt, ...]) -> tuple[st.Stmt, ...]:
        out: list[st.Stmt] = []
        i = 0
        while i < len(stmts):
            run = self.run(stmts, i)
            if run:
                out.append(self.whole_words(run))
                i += len(run)
            else:
                out.append(self.stmt(stmts[i]))
                i += 1
        return tuple(out)

    def run(self, stmts: tuple[st.Stmt, ...], start: int) -> list[st.Store]:
        """The longest run of whole words' worth of Stores from stmts[start] to consecutive
        elements of one packed buffer, with values already computed; [] if none."""
        first = stmts[start]
        if not (isinstance(first, st.Store) and self.is_packed(first.name, first.value.type)):
            return []
        base, offset = ops.split_offset(first.index)
        run: list[st.Store] = []
        for s in stmts[start:]:
            if not (isinstance(s, st.Store) and s.name == first.name and is_trivial(s.value)
                    and s.predicate is None and not self.reads_packed(s.index)
                    and ops.split_offset(s.index) == (base, offset + len(run))):
                break
            run.append(s)
        per_word = 32 // first.value.type.bits
        return run[:len(run) - len(run) % per_word]

    def whole_words(self, run: list[st.Store]) -> st.Stmt:
        b = Bindings(self.names)
        t = run[0].value.type
        index = b.bind(run[0].index, "index")
        at = _Layout(t, index)
        word = b.bind(at.word, "word")
        aligned = ir.EQ(intrinsic(I32, "bitwise_and", index, ops.const(at.per_word - 1)),
                        ops.const(0))
        words = []
        for w in range(len(run) // at.per_word):
            parts = [at.bits_of(s.value) for s in run[w * at.per_word:(w + 1) * at.per_word]]
            value = parts[0]
            for j, part in enumerate(parts[1:], 1):
                shifted = intrinsic(U32, "shift_left", part, ops.const(j * t.bits, U32))
                value = intrinsic(U32, "bitwise_or", value, shifted)
            words.append(st.Store(run[0].name, value, ops.add(word, ops.const(w))))
        return b.around(st.IfThenElse(aligned, st.block(*words),
                                      self.straddling(run[0].name, words, at, word)))

    def straddling(self, name: str, words: list[st.Store], at: _Layout,
                   word: ir.Expr) -> st.Stmt:
        """The words' values stored from a bit that is not 0 (`at.bit`: bits .. 32 - bits) of
        `word` on: they straddle len(words) + 1 words, the first and last shared with other
        invocations (two atomics each, as an element's), those between written whole."""
        b = Bindings(self.names)
        bit = b.bind(at.bit, "bit")
        rest = b.bind(ir.Sub(ops.const(32, U32), bit), "rest")
        ones = ops.const(0xFFFFFFFF, U32)
        buffer = ir.StringImm(name)
        values = [b.bind(w.value, "packed") for w in words]

        def shared(at_word: ir.Expr, clear: ir.Expr, put: ir.Expr) -> list[st.Stmt]:
            return [st.Evaluate(intrinsic(U32, ATOMIC_AND, buffer, at_word,
                                          intrinsic(U32, "bitwise_not", clear))),
                    st.Evaluate(intrinsic(U32, ATOMIC_OR, buffer, at_word, put))]

        out = shared(word, intrinsic(U32, "shift_left", ones, bit),
                     intrinsic(U32, "shift_left", values[0], bit))
        for j in range(1, len(values)):
            whole = intrinsic(U32, "bitwise_or",
                              intrinsic(U32, "shift_right", values[j - 1], rest),
                              intrinsic(U32, "shift_left", values[j], bit))
            out.append(st.Store(name, whole, ops.add(word, ops.const(j))))
        out += shared(ops.add(word, ops.const(len(values))),
                      intrinsic(U32, "shift_right", ones, rest),
                      intrinsic(U32, "shift_right", values[-1], rest))
        return b.around(st.block(*out))
