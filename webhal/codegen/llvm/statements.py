"""Statements to LLVM IR: loops (parallel ones outlined into tasks for halide_do_par_for),
lets, allocations (stack when small, else halide_malloc/halide_free), assertions
that return the runtime's error code, and stores."""

from __future__ import annotations

from dataclasses import dataclass, replace

from llvmlite import ir as ll

from webhal import abi
from webhal.codegen.llvm import interleave
from webhal.codegen.llvm.expressions import ExprCodegen
from webhal.codegen.llvm.types import I8, I32, PTR, abi_type, memory_type
from webhal.errors import CompileError
from webhal.ir import nodes as ir
from webhal.ir import ops
from webhal.ir import stmt as st
from webhal.ir.schedule import ForType
from webhal.ir.visitor import children, strings_and_children

STACK_LIMIT = 16 * 1024  # bytes: allocations up to this live on the stack
# On wasm (Emscripten) a run-time-sized allocation also goes on the stack when the thread
# still has this much stack free after it (emscripten_stack_get_free): a strip's buffers of a
# sliding window then all lie together on the worker's stack. The Sobel autoschedule's third
# (12 KB, past the 16 KiB above) on the heap made it 1.26x the hand schedule's time on 2
# workers, on the stack 1.01 (docs/autoschedule.md): the heap block's address, not malloc.
STACK_RESERVE = 32 * 1024


def opaque(b: ll.IRBuilder, v: ll.Value) -> ll.Value:
    """v as an opaque `ptr` (llvmlite types allocas as typed pointers)."""
    cast = ll.instructions.CastInstr(b.block, "bitcast", v, PTR)
    b._insert(cast)
    return cast


@dataclass(frozen=True, slots=True)
class EarlyFree(st.Stmt):
    """Free heap allocation `name` here, before its Allocate's body ends (codegen only)."""
    name: str


def _with_early_free(body: st.Stmt, name: str) -> st.Stmt | None:
    """body with an EarlyFree(name) just after the last statement that mentions the
    allocation, as Halide frees a buffer after its last use rather than at the end of its
    scope: the next buffers then reuse its memory (the bilateral grid's blury takes blurz's
    place), where keeping all of them until the end made the heap grow and shrink on every
    call, page faults included. The free is placed only through lets, producer/consumer
    markers, allocations and blocks, never in a loop or a branch, so it runs exactly once;
    None when the last use ends the body (the free stays where it was)."""
    match body:
        case st.Block():
            uses = [i for i, c in enumerate(body.stmts) if _mentions(c, name)]
            if not uses:
                return None
            last = uses[-1]
            inner = _with_early_free(body.stmts[last], name)
            if inner is not None:
                return st.Block(body.stmts[:last] + (inner,) + body.stmts[last + 1:])
            if last == len(body.stmts) - 1:
                return None
            return st.Block(body.stmts[:last + 1] + (EarlyFree(name),)
                            + body.stmts[last + 1:])
        case st.LetStmt() | st.ProducerConsumer():
            inner = _with_early_free(body.body, name)
            return None if inner is None else replace(body, body=inner)
        case st.Allocate() if body.name != name:
            inner = _with_early_free(body.body, name)
            return None if inner is None else replace(body, body=inner)
    return None


def _mentions(s: st.Stmt, name: str) -> bool:
    """Whether s names the allocation (or a name under it, as name.buffer): its loads, stores
    and variables; a GPU launch is taken to use every buffer."""
    names = _mentioned(s)
    return name in names or _EVERY in names


_EVERY = "\0every buffer"  # among a statement's names when it holds a GPU launch
_MENTIONED: dict[int, tuple[st.Stmt, frozenset]] = {}  # statement id -> (it, _mentioned)


def _mentioned(root: st.Stmt) -> frozenset:
    """The names in root's fields and in its expressions' (a string in a tuple field too:
    visitor.strings_and_children), each with its dotted prefixes ("f.buffer" gives "f" and
    "f.buffer"), memoized per statement: a statement's set is its own names and its
    sub-statements' sets, so finding the last use of every heap allocation (each a question
    about the blocks on the path to it) walks the tree once in all rather than once per
    allocation."""
    hit = _MENTIONED.get(id(root))
    if hit is not None and hit[0] is root:
        return hit[1]
    if len(_MENTIONED) > 500_000:
        _MENTIONED.clear()
    stack: list = [root]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):  # a statement whose sub-statements are done
            n, strings, exprs, stmts = n
            names = set()
            for v in strings:
                names.update(_prefixes(v))
            seen = set()
            while exprs:
                e = exprs.pop()
                if id(e) in seen:
                    continue
                seen.add(id(e))
                more_strings, more_exprs = strings_and_children(e)
                for v in more_strings:
                    names.update(_prefixes(v))
                exprs.extend(more_exprs)
            if isinstance(n, st.GPULaunch):
                names.add(_EVERY)
            names = frozenset(names.union(*(_MENTIONED[id(c)][1] for c in stmts)))
            _MENTIONED[id(n)] = (n, names)
            continue
        hit = _MENTIONED.get(id(n))
        if hit is not None and hit[0] is n:
            continue
        strings, below = strings_and_children(n)
        stmts = [c for c in below if isinstance(c, st.Stmt)]
        stack.append((n, strings, [c for c in below if not isinstance(c, st.Stmt)], stmts))
        stack.extend(stmts)
    return _MENTIONED[id(root)][1]


_PREFIXES: dict[str, tuple[str, ...]] = {}


def _prefixes(v: str) -> tuple[str, ...]:
    """v and each part of it before a dot."""
    found = _PREFIXES.get(v)
    if found is None:
        parts, i = [v], v.find(".")
        while i >= 0:
            parts.append(v[:i])
            i = v.find(".", i + 1)
        found = _PREFIXES[v] = tuple(parts)
    return found


def _names_used(s: st.Stmt) -> set[str]:
    """The names of the variables, loads and stores in s: a walk that enters a node shared
    by many parents (lowered trees share subtrees widely) once."""
    used, seen, stack = set(), set(), [s]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, ir.Variable | ir.Load | st.Store):
            used.add(n.name)
        stack.extend(children(n))
    return used


class StmtCodegen(ExprCodegen):
    def __init__(self, module: ll.Module, size_t: ll.IntType):
        super().__init__()
        self.module = module
        self.size_t = size_t
        self.function: ll.Function | None = None
        self.entry_block: ll.Block | None = None
        self.task_count = 0
        # The bytes of run-time-sized allocations open on the stack now (an i32/i64 value, None
        # when there are none): a nested one goes on the stack too while the total stays within
        # STACK_LIMIT, else to the heap, so they take at most STACK_LIMIT of a (small) pthread
        # stack in all. A strip's buffers of a sliding window (the Sobel autoschedule's
        # smooth_v and smooth_h inside wide's) then cost no halide_malloc, whose one lock the
        # pool's workers share.
        self.runtime_stack_bytes: ll.Value | None = None
        # The run-time-sized allocations open now: whether each is on the stack (an i1).
        self.on_stack: dict[str, ll.Value] = {}
        # Whether emscripten_stack_get_free says how much stack the thread has left (wasm
        # targets; the wasmtime runner answers 0, leaving STACK_LIMIT alone).
        self.measured_stack = False

    def stmt(self, s: st.Stmt) -> None:
        method = getattr(self, "_s_" + type(s).__name__, None)
        if method is None:
            raise CompileError(f"LLVM codegen cannot handle statement {type(s).__name__}")
        method(s)
        if not isinstance(s, (st.Store, st.LetStmt, st.Block, st.ProducerConsumer)):
            self.forget_conversions()  # (stores forget what they change: tbaa)

    def bind(self, name: str, value: ll.Value, body) -> None:
        old = self.symbols.get(name)
        self.symbols[name] = value
        try:
            body()
        finally:
            if old is None:
                self.symbols.pop(name, None)
            else:
                self.symbols[name] = old

    def _s_LetStmt(self, s):
        self.bind(s.name, self.expr(s.value), lambda: self.stmt(s.body))

    def _s_Block(self, s):
        i = 0
        while i < len(s.stmts):
            k = interleave.interleaved_group(s.stmts, i)
            if k:
                self.interleaved_store(s.stmts[i:i + k])
                i += k
            else:
                self.stmt(s.stmts[i])
                i += 1

    def interleaved_store(self, group) -> None:
        """k stores of stride k into consecutive bases (under the same lets: bound once), as
        one dense store."""
        lets, _ = interleave.peel_lets(group[0])
        if lets:
            let = lets[0]
            self.bind(let.name, self.expr(let.value),
                      lambda: self.interleaved_store([s.body for s in group]))
            return
        stores = group
        values = [self.expr(x.value) for x in stores]
        elem = memory_type(stores[0].value.type.element_of())
        p = self.element_pointer(stores[0].name, self.index(stores[0].index.base), elem)
        self.tbaa(self.builder.store(interleave.interleave(self.builder, values), p,
                                     align=stores[0].value.type.bytes), stores[0].name)

    def _s_ProducerConsumer(self, s):
        self.stmt(s.body)

    def _s_Evaluate(self, s):
        self.expr(s.value)

    def _s_IfThenElse(self, s):
        cond = self.expr(s.condition)
        if s.else_case is None:
            with self.builder.if_then(cond):
                self.stmt(s.then_case)
        else:
            with self.builder.if_else(cond) as (then, otherwise):
                with then:
                    self.stmt(s.then_case)
                with otherwise:
                    self.stmt(s.else_case)

    def _s_AssertStmt(self, s):
        ok = self.expr(s.condition)
        with self.builder.if_then(self.builder.not_(ok), likely=False):
            code = self.expr(s.message)
            self.builder.ret(code)

    def _s_Store(self, s):
        value_t = s.value.type
        outer, self.strided_groups = self.strided_groups, interleave.strided_groups(s.value)
        try:
            v = self.expr(s.value)
        finally:
            self.strided_groups = outer
        if value_t.is_bool():
            v = self.builder.zext(v, memory_type(value_t))
        elem = memory_type(value_t.element_of())
        if value_t.lanes == 1:
            p = self.element_pointer(s.name, self.index(s.index), elem)
            self.tbaa(self.builder.store(v, p, align=value_t.bytes), s.name)
        elif isinstance(s.index, ir.Ramp) and ops.is_const(s.index.stride, 1):
            p = self.element_pointer(s.name, self.index(s.index.base), elem)
            self.tbaa(self.builder.store(v, p, align=value_t.bytes), s.name)
        elif isinstance(s.index, ir.Ramp) and s.index.base.type.is_scalar():
            # Lane i at base + i * stride, a scalar address each (as Halide's scatter): the
            # vector of indices, taken apart lane by lane, cost two to three instructions more
            # per lane (x86 pextrd + movslq).
            p = self.element_pointer(s.name, self.index(s.index.base), elem)
            stride = ops.as_const(s.index.stride)
            step = None if isinstance(stride, int) else self.index(s.index.stride)
            for i in range(value_t.lanes):
                offset = ll.Constant(step.type, i) if step is not None else None
                at = self.builder.mul(step, offset, flags=["nsw"]) if step is not None \
                    else ll.Constant(I32, i * stride)
                x = self.builder.extract_element(v, ll.Constant(I32, i))
                self.tbaa(self.builder.store(x, self.builder.gep(p, [at], source_etype=elem),
                                             align=value_t.bytes), s.name)
        else:
            idx = self.index(s.index)
            for i in range(value_t.lanes):
                lane = self.builder.extract_element(idx, ll.Constant(I32, i))
                x = self.builder.extract_element(v, ll.Constant(I32, i))
                self.tbaa(self.builder.store(x, self.element_pointer(s.name, lane, elem),
                                             align=value_t.bytes), s.name)

    def _s_Allocate(self, s):
        elem = memory_type(s.type)
        size = ops.as_const(s.size)
        b = self.builder
        if size is not None and size * s.type.bytes <= STACK_LIMIT:
            with b.goto_block(self.entry_block):
                b.position_at_start(self.entry_block)
                ptr = opaque(b, b.alloca(ll.ArrayType(elem, max(size, 1)), name=s.name))
            self.bind(s.name, ptr, lambda: self.stmt(s.body))
            return
        # An empty region (size <= 0: a producer inside the tail of a guarded split) still
        # gets one element, as on the stack, rather than a negative size that malloc refuses.
        count = b.call(self.intrinsic("llvm.smax", I32, [I32, I32]),
                       [self.expr(s.size), ll.Constant(I32, 1)])
        if self.size_t.width > 32:
            count = b.zext(count, self.size_t)
        nbytes = b.mul(count, ll.Constant(self.size_t, s.type.bytes))
        if size is None:
            self.allocate_small_on_stack(s, nbytes)
            return
        ptr = self.heap_allocate(s.name, nbytes)
        body = _with_early_free(s.body, s.name)
        self.bind(s.name, ptr, lambda: self.stmt(body or s.body))
        if body is None:
            self.heap_free(ptr)

    def _s_EarlyFree(self, s):
        small = self.on_stack.get(s.name)
        if small is None:
            self.heap_free(self.symbols[s.name])
            return
        with self.builder.if_then(self.builder.not_(small)):  # the stack's goes at the end
            self.heap_free(self.symbols[s.name])

    def allocate_small_on_stack(self, s, nbytes) -> None:
        """A run-time size: on the stack when it comes to STACK_LIMIT or less, released when
        the body is done (a row buffer of a tile in a parallel loop, say: a malloc and a free
        for each task cost more than a small task's work, and contend for malloc's lock); on
        wasm also when the thread keeps STACK_RESERVE bytes of stack free after it."""
        b = self.builder
        limit = ll.Constant(self.size_t, STACK_LIMIT)
        used = self.runtime_stack_bytes
        if used is None:
            small = b.icmp_unsigned("<=", nbytes, limit)
            total = nbytes
        else:  # used is at most the thread's stack, nbytes checked first: no wrap that counts
            total = b.add(used, nbytes)
            small = b.and_(b.icmp_unsigned("<=", nbytes, limit),
                           b.icmp_unsigned("<=", total, limit))
        if self.measured_stack:  # asked only past STACK_LIMIT (wasmtime answers in Python)
            before = b.block
            with b.if_then(b.not_(small)):
                free = b.call(self.declare("emscripten_stack_get_free", self.size_t, []), [])
                reserve = ll.Constant(self.size_t, STACK_RESERVE)
                spare = b.select(b.icmp_unsigned(">", free, reserve), b.sub(free, reserve),
                                 ll.Constant(self.size_t, 0))
                fits = b.icmp_unsigned("<=", nbytes, spare)
                measured = b.block
            joined = b.phi(ll.IntType(1))
            joined.add_incoming(ll.Constant(ll.IntType(1), 1), before)
            joined.add_incoming(fits, measured)
            small = joined
        saved = b.call(self.declare("llvm.stacksave.p0", PTR, []), [])
        with b.if_else(small) as (on_stack, on_heap):
            with on_stack:
                stack_ptr = b.alloca(I8, nbytes)
                stack_ptr.align = 16
                stack_block = b.block
            with on_heap:
                heap_ptr = self.heap_allocate(s.name, nbytes)
                heap_block = b.block
        ptr = b.phi(PTR, name=s.name)
        ptr.add_incoming(stack_ptr, stack_block)
        ptr.add_incoming(heap_ptr, heap_block)
        self.runtime_stack_bytes = b.select(small, total, used if used is not None
                                            else ll.Constant(self.size_t, 0))
        body = _with_early_free(s.body, s.name)
        outer = self.on_stack.get(s.name)  # a nested allocation of the same name (a Tuple's)
        self.on_stack[s.name] = small
        try:
            self.bind(s.name, ptr, lambda: self.stmt(body or s.body))
        finally:
            self.runtime_stack_bytes = used
            if outer is None:
                del self.on_stack[s.name]
            else:
                self.on_stack[s.name] = outer
        if body is None:
            with b.if_then(b.not_(small)):
                self.heap_free(ptr)
        b.call(self.declare("llvm.stackrestore.p0", ll.VoidType(), [PTR]), [saved])

    def heap_allocate(self, name: str, nbytes) -> ll.Value:
        """halide_malloc(nbytes), returning halide_error_out_of_memory's code when it fails."""
        b = self.builder
        malloc = self.declare("halide_malloc", PTR, [PTR, self.size_t])
        ptr = b.call(malloc, [self.user_context, nbytes], name=name)
        with b.if_then(b.icmp_unsigned("==", ptr, ll.Constant(PTR, None)), likely=False):
            oom = self.declare("halide_error_out_of_memory", I32, [PTR])
            b.ret(b.call(oom, [self.user_context]))
        return ptr

    def heap_free(self, ptr) -> None:
        free = self.declare("halide_free", ll.VoidType(), [PTR, PTR])
        self.builder.call(free, [self.user_context, ptr])

    def _s_GPULaunch(self, s):
        """Pack the kernel's scalars as abi.py says (one 32-bit slot each, a value's bits
        zero-extended) and call webhal_gpu_run."""
        b = self.builder
        n = max(1, len(s.args))
        with b.goto_block(self.entry_block):
            b.position_at_start(self.entry_block)
            packed = b.alloca(ll.ArrayType(I32, n), name="gpu.args")
        for i, a in enumerate(s.args):
            v = self.expr(a)
            if a.type.is_float():
                v = b.bitcast(v, ll.IntType(a.type.bits))
            if a.type.bits < 32:
                v = b.zext(v, I32)
            b.store(v, b.gep(packed, [ll.Constant(I32, 0), ll.Constant(I32, i)]))
        run = self.declare_gpu_call("webhal_gpu_run")
        grid = [self.expr(g) for g in s.grid]
        nbytes = abi.GPU_SCALAR_BYTES * len(s.args)
        code = b.call(run, [self.user_context, ll.Constant(I32, s.kernel_id), *grid,
                            opaque(b, packed), ll.Constant(I32, nbytes)])
        with b.if_then(b.icmp_signed("!=", code, ll.Constant(I32, 0)), likely=False):
            b.ret(code)

    def declare_gpu_call(self, name: str) -> ll.Function:
        params = [abi_type(kind) for _, kind in abi.GPU_CALLS[name].params]
        return self.declare(name, I32, [PTR, *params])

    def _s_For(self, s):
        if s.for_type is ForType.Parallel:
            self.parallel_for(s)
        else:  # serial; GPU loops on a target without a GPU run here too, one after another
            self.serial_for(s)

    def serial_for(self, s):
        b = self.builder
        lo = self.expr(s.min)
        end = b.add(lo, self.expr(s.extent), flags=("nsw",))  # counters fit in int32
        pre = b.block
        header = b.append_basic_block(f"{s.name}.header")
        body = b.append_basic_block(f"{s.name}.body")
        after = b.append_basic_block(f"{s.name}.end")
        b.cbranch(b.icmp_signed("<", lo, end), header, after)
        b.position_at_end(header)
        i = b.phi(I32, name=s.name)
        i.add_incoming(lo, pre)
        b.branch(body)
        b.position_at_end(body)
        self.bind(s.name, i, lambda: self.stmt(s.body))
        nxt = b.add(i, ll.Constant(I32, 1), flags=("nsw",))  # i < end: no overflow
        i.add_incoming(nxt, b.block)
        b.cbranch(b.icmp_signed("<", nxt, end), header, after)
        b.position_at_end(after)

    def parallel_for(self, s):
        """Outline the body into `int task(void *uc, int i, uint8_t *closure)` and hand it to
        halide_do_par_for; the closure carries every value the body uses from outside."""
        captured = sorted(n for n in _names_used(s.body) if n in self.symbols and n != s.name)
        values = [self.symbols[n] for n in captured]
        closure_t = ll.LiteralStructType([v.type for v in values])
        b = self.builder
        with b.goto_block(self.entry_block):
            b.position_at_start(self.entry_block)
            closure = opaque(b, b.alloca(closure_t, name=f"{s.name}.closure"))
        for i, v in enumerate(values):
            b.store(v, b.gep(closure, [ll.Constant(I32, 0), ll.Constant(I32, i)],
                             source_etype=closure_t))
        task = self.outline_task(s, captured, closure_t)
        par_for = self.declare("halide_do_par_for", I32, [PTR, PTR, I32, I32, PTR])
        lo = self.expr(s.min)
        code = b.call(par_for, [self.user_context, task, lo, self.expr(s.extent), closure])
        with b.if_then(b.icmp_signed("!=", code, ll.Constant(I32, 0)), likely=False):
            b.ret(code)

    def outline_task(self, s, captured: list[str], closure_t) -> ll.Function:
        self.task_count += 1
        fn = ll.Function(self.module, ll.FunctionType(I32, [PTR, I32, PTR]),
                         name=f"{self.function.name}.par_for.{self.task_count}")
        fn.linkage = "internal"
        saved = (self.builder, self.function, self.entry_block, dict(self.symbols),
                 self.user_context, self.runtime_stack_bytes)
        # A task may run on the thread whose stack holds the enclosing allocations: then its
        # own run-time-sized ones go to the heap, as the budget is the caller's.
        if self.runtime_stack_bytes is not None:
            self.runtime_stack_bytes = ll.Constant(self.size_t, STACK_LIMIT + 1)
        entry = fn.append_basic_block("entry")
        body = fn.append_basic_block("body")
        self.builder, self.function, self.entry_block = ll.IRBuilder(body), fn, entry
        uc, index, closure = fn.args
        self.user_context = uc
        self.symbols = {}
        for i, name in enumerate(captured):
            p = self.builder.gep(closure, [ll.Constant(I32, 0), ll.Constant(I32, i)],
                                 source_etype=closure_t)
            self.symbols[name] = self.builder.load(p, typ=closure_t.elements[i])
        self.symbols[s.name] = index
        self.stmt(s.body)
        if not self.builder.block.is_terminated:
            self.builder.ret(ll.Constant(I32, 0))
        ll.IRBuilder(entry).branch(body)
        (self.builder, self.function, self.entry_block, self.symbols,
         self.user_context, self.runtime_stack_bytes) = saved
        return fn

