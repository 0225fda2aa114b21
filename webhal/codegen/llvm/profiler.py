"""The profiler's runtime as LLVM IR (target feature `profile`), for static libraries and npm
packages: the `webhal_profiler_*` calls the profiling pass places (abi.PROFILER_FUNCTIONS), with
the semantics of webhal/runtime/profiler.py (the host JIT and wasmtime use that one), and
Halide's hooks `halide_profiler_report(uc)` (prints through halide_print, in the format of
Halide's report) and `halide_profiler_reset()`; `webhal_profiler_report_text(buf, size)` writes
the report into a buffer (the npm package's p.profile() reads it).

Clock: clock_gettime(CLOCK_MONOTONIC) natively, emscripten_get_now() (performance.now(), whose
resolution the browser may coarsen) on wasm. Limits: 16 pipelines and 255 Funcs per pipeline
(more are charged to the overhead); memory is not tracked. The thread's Func and its task stack
are thread_local (threads: the pthread pool; wasm without threads has one thread)."""

from __future__ import annotations

from llvmlite import ir as ll

from webhal.codegen.llvm.types import I8, I32, I64, PTR

MAX_PIPELINES = 16
MAX_FUNCS = 256      # id 0, the overhead, and 255 Funcs
MAX_DEPTH = 64       # nested parallel tasks on one thread
_DOUBLE = ll.DoubleType()
_LINE = 1024


class _Builder:
    def __init__(self, m: ll.Module, target):
        self.m, self.target = m, target
        self.wasm = target.is_wasm

    def glob(self, name, t, tls=False):
        g = ll.GlobalVariable(self.m, t, name=f"webhal.profiler.{name}")
        g.linkage = "internal"
        g.initializer = ll.Constant(t, None)
        if tls:
            g.storage_class = "thread_local"
        return g

    def declare(self, name, ret, args, var_arg=False):
        f = self.m.globals.get(name)
        if f is None:
            f = ll.Function(self.m, ll.FunctionType(ret, args, var_arg=var_arg), name=name)
        return f


def _loop(b: ll.IRBuilder, n, body, lo=None) -> None:
    """for (i32 i = lo; i < n; i++) body(i); lo defaults to 0."""
    fn = b.function
    i = b.alloca(I32)
    b.store(ll.Constant(I32, 0) if lo is None else lo, i)
    head, loop, done = (fn.append_basic_block(x) for x in ("head", "loop", "done"))
    b.branch(head)
    b.position_at_end(head)
    iv = b.load(i, typ=I32)
    b.cbranch(b.icmp_signed("<", iv, n), loop, done)
    b.position_at_end(loop)
    body(iv)
    b.store(b.add(b.load(i, typ=I32), ll.Constant(I32, 1)), i)
    b.branch(head)
    b.position_at_end(done)


def _string(m, name, text):
    data = bytearray(text.encode() + b"\0")
    g = ll.GlobalVariable(m, ll.ArrayType(I8, len(data)), name=f"webhal.profiler.s.{name}")
    g.global_constant, g.linkage = True, "private"
    g.initializer = ll.Constant(ll.ArrayType(I8, len(data)), data)
    return g


def build(m: ll.Module, target) -> None:
    """Add the profiler's runtime to module `m` (which has halide_print, from runtime.py)."""
    B = _Builder(m, target)
    P, F = MAX_PIPELINES, MAX_FUNCS
    arr = lambda t, n: ll.ArrayType(t, n)  # noqa: E731
    names, funcs = B.glob("names", arr(PTR, P)), B.glob("funcs", arr(PTR, P))
    nfuncs = B.glob("nfuncs", arr(I32, P))
    runs, total, ploops, tasks, taskns, parns = (B.glob(n, arr(I64, P)) for n in (
        "runs", "total", "ploops", "tasks", "taskns", "parns"))
    ns = B.glob("ns", arr(arr(I64, F), P))
    busy = B.glob("busy", arr(I64, F))
    # This run's time per Func, added to ns at pipeline_end: a run that fails (returns before
    # its end) leaves nothing in the report.
    run_ns = B.glob("run_ns", arr(I64, F))
    count, running = B.glob("count", I32), B.glob("running", I32)
    start, parstart = B.glob("start", I64), B.glob("parstart", I64)
    cur, last = B.glob("cur", I32, tls=True), B.glob("last", I64, tls=True)
    depth = B.glob("depth", I32, tls=True)
    scur, slast = B.glob("scur", arr(I32, MAX_DEPTH), tls=True), \
        B.glob("slast", arr(I64, MAX_DEPTH), tls=True)
    zero32, one32, zero64 = ll.Constant(I32, 0), ll.Constant(I32, 1), ll.Constant(I64, 0)

    def fn(name, args, linkage="weak", ret=I32):
        f = ll.Function(m, ll.FunctionType(ret, args), name=name)
        f.linkage = linkage
        return f, ll.IRBuilder(f.append_basic_block("entry"))

    # now(): nanoseconds of a monotonic clock.
    now, b = fn("webhal.profiler.now", [], "internal", I64)
    if B.wasm:
        get_now = B.declare("emscripten_get_now", _DOUBLE, [])
        b.ret(b.fptosi(b.fmul(b.call(get_now, []), ll.Constant(_DOUBLE, 1e6)), I64))
    else:
        clock = B.declare("clock_gettime", I32, [I32, PTR])
        ts = b.alloca(ll.LiteralStructType([I64, I64]))
        monotonic = 6 if getattr(target, "os", "") == "osx" else 1
        b.call(clock, [ll.Constant(I32, monotonic), ts])
        sec = b.load(b.gep(ts, [zero32, zero32]), typ=I64)
        nsec = b.load(b.gep(ts, [zero32, one32]), typ=I64)
        b.ret(b.add(b.mul(sec, ll.Constant(I64, 1_000_000_000)), nsec))

    def ns_slot(b, p, f):  # the running pipeline's (p) slot of Func f in this run
        return b.gep(run_ns, [zero32, f])

    # charge(t): the time since `last` to this thread's Func (busy[] inside tasks).
    charge, b = fn("webhal.profiler.charge", [I64], "internal", ll.VoidType())
    t = charge.args[0]
    p = b.load(running, typ=I32)
    with b.if_then(b.icmp_signed(">=", p, zero32)):
        d = b.sub(t, b.load(last, typ=I64))
        f = b.load(cur, typ=I32)
        with b.if_else(b.icmp_signed(">", b.load(depth, typ=I32), zero32)) as (task, main):
            with task:
                b.atomic_rmw("add", b.gep(busy, [zero32, f]), d, "monotonic")
            with main:
                slot = ns_slot(b, p, f)
                b.store(b.add(b.load(slot, typ=I64), d), slot)
    b.store(t, last)
    b.ret_void()

    def add(b, g, p, v):
        slot = b.gep(g, [zero32, p])
        b.store(b.add(b.load(slot, typ=I64), v), slot)

    # pipeline_start(uc, name, funcs): find or add the pipeline (by its name's address).
    f_, b = fn("webhal_profiler_pipeline_start", [PTR, PTR, PTR])
    _, name, fl = f_.args
    found = b.alloca(I32)
    b.store(ll.Constant(I32, -1), found)
    n = b.load(count, typ=I32)

    def look(i):
        same = b.icmp_unsigned("==", b.load(b.gep(names, [zero32, i]), typ=PTR), name)
        with b.if_then(same):
            b.store(i, found)
    _loop(b, n, look)
    idx = b.load(found, typ=I32)
    with b.if_then(b.icmp_signed("<", idx, zero32)):
        with b.if_then(b.icmp_signed("<", n, ll.Constant(I32, P))):
            b.store(name, b.gep(names, [zero32, n]))
            b.store(fl, b.gep(funcs, [zero32, n]))
            # A slot used before halide_profiler_reset keeps its old stats: start them over.
            for g in (runs, total, ploops, tasks, taskns, parns):
                b.store(zero64, b.gep(g, [zero32, n]))
            _loop(b, ll.Constant(I32, F), lambda i: b.store(zero64, b.gep(ns, [zero32, n, i])))
            k = b.alloca(I32)  # Funcs: commas + 1, or none for an empty list
            b.store(zero32, k)
            pos = b.alloca(I32)
            b.store(zero32, pos)
            head, body, done = (f_.append_basic_block(x) for x in ("h", "b", "d"))
            b.branch(head)
            b.position_at_end(head)
            c = b.load(b.gep(fl, [b.load(pos, typ=I32)], source_etype=I8), typ=I8)
            b.cbranch(b.icmp_unsigned("==", c, ll.Constant(I8, 0)), done, body)
            b.position_at_end(body)
            k1 = b.load(k, typ=I32)
            b.store(b.select(b.icmp_unsigned("==", c, ll.Constant(I8, ord(","))),
                             b.add(k1, one32), k1), k)
            b.store(b.add(b.load(pos, typ=I32), one32), pos)
            b.branch(head)
            b.position_at_end(done)
            nonempty = b.icmp_signed(">", b.load(pos, typ=I32), zero32)
            b.store(b.select(nonempty, b.add(b.load(k, typ=I32), one32), zero32),
                    b.gep(nfuncs, [zero32, n]))
            b.store(n, found)
            b.store(b.add(n, one32), count)
    _loop(b, ll.Constant(I32, F), lambda i: b.store(zero64, b.gep(run_ns, [zero32, i])))
    t = b.call(now, [])
    b.store(b.load(found, typ=I32), running)
    b.store(t, start)
    b.store(zero32, cur)
    b.store(t, last)
    b.store(zero32, depth)
    b.ret(zero32)

    # set_current_func(uc, f)
    f_, b = fn("webhal_profiler_set_current_func", [PTR, I32])
    b.call(charge, [b.call(now, [])])
    fid = f_.args[1]
    b.store(b.select(b.icmp_unsigned("<", fid, ll.Constant(I32, F)), fid, zero32), cur)
    b.ret(zero32)

    def outer(b):  # on the pipeline's thread, outside tasks, with a pipeline running
        return b.and_(b.icmp_signed("==", b.load(depth, typ=I32), zero32),
                      b.icmp_signed(">=", b.load(running, typ=I32), zero32))

    # parallel_start(uc)
    f_, b = fn("webhal_profiler_parallel_start", [PTR])
    with b.if_then(outer(b)):
        t = b.call(now, [])
        b.call(charge, [t])
        b.store(t, parstart)
        _loop(b, ll.Constant(I32, F), lambda i: b.store(zero64, b.gep(busy, [zero32, i])))
    b.ret(zero32)

    # parallel_end(uc): the loop's wall clock shared by the Funcs its tasks computed.
    f_, b = fn("webhal_profiler_parallel_end", [PTR])
    with b.if_then(outer(b)):
        t = b.call(now, [])
        p = b.load(running, typ=I32)
        wall = b.sub(t, b.load(parstart, typ=I64))
        spent = b.alloca(I64)
        b.store(zero64, spent)
        _loop(b, ll.Constant(I32, F), lambda i: b.store(
            b.add(b.load(spent, typ=I64), b.load(b.gep(busy, [zero32, i]), typ=I64)), spent))
        s = b.load(spent, typ=I64)
        given = b.alloca(I64)
        b.store(zero64, given)
        with b.if_then(b.icmp_signed(">", s, zero64)):
            def share(i):
                part = b.fptosi(b.fdiv(b.fmul(b.sitofp(wall, _DOUBLE), b.sitofp(
                    b.load(b.gep(busy, [zero32, i]), typ=I64), _DOUBLE)),
                    b.sitofp(s, _DOUBLE)), I64)
                slot = ns_slot(b, p, i)
                b.store(b.add(b.load(slot, typ=I64), part), slot)
                b.store(b.add(b.load(given, typ=I64), part), given)
            _loop(b, ll.Constant(I32, F), share)
        slot = ns_slot(b, p, b.load(cur, typ=I32))  # the rest (all of it without tasks' time)
        b.store(b.add(b.load(slot, typ=I64), b.sub(wall, b.load(given, typ=I64))), slot)
        add(b, ploops, p, ll.Constant(I64, 1))
        add(b, parns, p, wall)
        add(b, taskns, p, s)
        b.store(t, last)
    b.ret(zero32)

    # task_start(uc, f), task_end(uc)
    f_, b = fn("webhal_profiler_task_start", [PTR, I32])
    t = b.call(now, [])
    d = b.load(depth, typ=I32)
    with b.if_then(b.icmp_signed(">", d, zero32)):
        b.call(charge, [t])
    fid = f_.args[1]
    with b.if_then(b.icmp_signed("<", d, ll.Constant(I32, MAX_DEPTH))):
        b.store(b.load(cur, typ=I32), b.gep(scur, [zero32, d]))
        b.store(b.load(last, typ=I64), b.gep(slast, [zero32, d]))
    b.store(b.add(d, one32), depth)
    b.store(b.select(b.icmp_unsigned("<", fid, ll.Constant(I32, F)), fid, zero32), cur)
    b.store(t, last)
    p = b.load(running, typ=I32)
    with b.if_then(b.icmp_signed(">=", p, zero32)):
        b.atomic_rmw("add", b.gep(tasks, [zero32, p]), ll.Constant(I64, 1), "monotonic")
    b.ret(zero32)

    f_, b = fn("webhal_profiler_task_end", [PTR])
    t = b.call(now, [])
    b.call(charge, [t])
    d = b.sub(b.load(depth, typ=I32), one32)
    b.store(d, depth)
    with b.if_then(b.icmp_signed("<", d, ll.Constant(I32, MAX_DEPTH))):
        b.store(b.load(b.gep(scur, [zero32, d]), typ=I32), cur)
        b.store(b.select(b.icmp_signed("==", d, zero32),
                         b.load(b.gep(slast, [zero32, d]), typ=I64), t), last)
    b.ret(zero32)

    # pipeline_end(uc)
    f_, b = fn("webhal_profiler_pipeline_end", [PTR])
    p = b.load(running, typ=I32)
    with b.if_then(b.icmp_signed(">=", p, zero32)):
        t = b.call(now, [])
        b.call(charge, [t])
        add(b, runs, p, ll.Constant(I64, 1))
        add(b, total, p, b.sub(t, b.load(start, typ=I64)))

        def keep(i):
            slot = b.gep(ns, [zero32, p, i])
            b.store(b.add(b.load(slot, typ=I64), b.load(b.gep(run_ns, [zero32, i]), typ=I64)),
                    slot)
        _loop(b, ll.Constant(I32, F), keep)
    b.store(ll.Constant(I32, -1), running)
    b.ret(zero32)

    # halide_profiler_reset()
    f_, b = fn("halide_profiler_reset", [], ret=ll.VoidType())
    b.store(zero32, count)
    b.store(ll.Constant(I32, -1), running)
    b.ret_void()

    _report(m, B, locals())


def _report(m, B, g) -> None:
    """webhal_profiler_report_text(buf, size) -> length, and halide_profiler_report(uc)."""
    zero32, one32 = ll.Constant(I32, 0), ll.Constant(I32, 1)
    size_t = I32 if B.target.bits == 32 else I64
    snprintf = B.declare("snprintf", I32, [PTR, size_t, PTR], var_arg=True)
    fmt = {k: _string(m, k, v) for k, v in {
        "head": "%s\n total time: %f ms  samples: %lld  runs: %lld  time per run: %f ms\n",
        "threads": " average threads used: %f\n",
        "heap": " heap allocations: not tracked by webhal\n",
        "entry": "    %-*s%12.6f", "tail": "ms (%s%d.%d%%)\n", "space": " ", "none": "",
        "overhead": "overhead"}.items()}

    f = ll.Function(m, ll.FunctionType(I32, [PTR, I32]), name="webhal_profiler_report_text")
    f.linkage = "weak"
    out, size = f.args
    b = ll.IRBuilder(f.append_basic_block("entry"))
    at = b.alloca(I32)
    b.store(zero32, at)
    with b.if_then(b.icmp_signed(">", size, zero32)):
        b.store(ll.Constant(I8, 0), out)  # an empty report with no pipeline run
    name = b.alloca(ll.ArrayType(I8, 256))
    namep = b.gep(name, [zero32, zero32])

    def emit(fmt_name, *args):
        """snprintf at `at`, within size; returns where it wrote."""
        pos = b.load(at, typ=I32)
        room = b.sub(size, pos)
        dst = b.gep(out, [pos], source_etype=I8)
        with b.if_then(b.icmp_signed(">", room, one32)):
            r = b.sext(room, size_t) if size_t.width > 32 else room
            n = b.call(snprintf, [dst, r, fmt[fmt_name], *args])
            n = b.select(b.icmp_signed(">=", n, room), b.sub(room, one32), n)
            b.store(b.add(pos, n), at)
        return dst

    def segment(fl, i):
        """Copy Func i's name (i >= 1: segment i - 1 of the list) and ": " into name; its
        length without the ": "."""
        k, pos, w = (b.alloca(I32) for _ in range(3))
        b.store(one32, k)
        b.store(zero32, pos)
        b.store(zero32, w)
        fn = b.function
        head, body, take, step, done = (fn.append_basic_block(x)
                                        for x in ("sh", "sb", "st", "ss", "sd"))
        b.branch(head)
        b.position_at_end(head)
        c = b.load(b.gep(fl, [b.load(pos, typ=I32)], source_etype=I8), typ=I8)
        b.cbranch(b.icmp_unsigned("==", c, ll.Constant(I8, 0)), done, body)
        b.position_at_end(body)
        comma = b.icmp_unsigned("==", c, ll.Constant(I8, ord(",")))
        with b.if_then(comma):
            b.store(b.add(b.load(k, typ=I32), one32), k)
        mine = b.and_(b.icmp_signed("==", b.load(k, typ=I32), i), b.not_(comma))
        b.cbranch(b.and_(mine, b.icmp_signed("<", b.load(w, typ=I32),
                                             ll.Constant(I32, 250))), take, step)
        b.position_at_end(take)
        b.store(c, b.gep(name, [zero32, b.load(w, typ=I32)]))
        b.store(b.add(b.load(w, typ=I32), one32), w)
        b.branch(step)
        b.position_at_end(step)
        b.store(b.add(b.load(pos, typ=I32), one32), pos)
        b.branch(head)
        b.position_at_end(done)
        n = b.load(w, typ=I32)
        b.store(ll.Constant(I8, ord(":")), b.gep(name, [zero32, n]))
        b.store(ll.Constant(I8, ord(" ")), b.gep(name, [zero32, b.add(n, one32)]))
        b.store(ll.Constant(I8, 0), b.gep(name, [zero32, b.add(n, ll.Constant(I32, 2))]))
        return n

    def pipeline(p):
        runs = b.load(b.gep(g["runs"], [zero32, p]), typ=I64)
        with b.if_then(b.icmp_signed(">", runs, ll.Constant(I64, 0))):
            tot = b.load(b.gep(g["total"], [zero32, p]), typ=I64)
            ms = b.fdiv(b.sitofp(tot, _DOUBLE), ll.Constant(_DOUBLE, 1e6))
            emit("head", b.load(b.gep(g["names"], [zero32, p]), typ=PTR), ms, runs, runs,
                 b.fdiv(ms, b.sitofp(runs, _DOUBLE)))
            loops = b.load(b.gep(g["ploops"], [zero32, p]), typ=I64)
            with b.if_then(b.icmp_signed(">", loops, ll.Constant(I64, 0))):
                emit("threads", b.fdiv(
                    b.sitofp(b.load(b.gep(g["taskns"], [zero32, p]), typ=I64), _DOUBLE),
                    b.sitofp(b.load(b.gep(g["parns"], [zero32, p]), typ=I64), _DOUBLE)))
            emit("heap")
            fl = b.load(b.gep(g["funcs"], [zero32, p]), typ=PTR)
            n = b.add(b.load(b.gep(g["nfuncs"], [zero32, p]), typ=I32), one32)
            n = b.select(b.icmp_signed(">", n, ll.Constant(I32, MAX_FUNCS)),
                         ll.Constant(I32, MAX_FUNCS), n)
            width = b.alloca(I32)
            b.store(ll.Constant(I32, 23), width)

            def measure(i):
                w = segment(fl, i)
                b.store(b.select(b.icmp_signed(">", w, b.load(width, typ=I32)), w,
                                 b.load(width, typ=I32)), width)
            _loop(b, n, measure, lo=one32)

            def row(i):
                t = b.load(b.gep(g["ns"], [zero32, p, i]), typ=I64)
                skip = b.and_(b.icmp_signed("==", i, zero32),
                              b.icmp_signed("==", t, ll.Constant(I64, 0)))
                with b.if_then(b.not_(skip)):
                    with b.if_else(b.icmp_signed("==", i, zero32)) as (ovh, func):
                        with ovh:
                            b.call(_strcpy(m), [namep, b.gep(fmt["overhead"],
                                                             [zero32, zero32])])
                            b.call(_strcat(m), [namep, _colon(m)])
                        with func:
                            segment(fl, i)
                    ft = b.fdiv(b.sitofp(t, _DOUBLE), b.fmul(b.sitofp(runs, _DOUBLE),
                                                             ll.Constant(_DOUBLE, 1e6)))
                    emit("entry", b.add(b.load(width, typ=I32), ll.Constant(I32, 3)), namep, ft)
                    # Halide prints %f and drops its last 3 digits.
                    pos = b.load(at, typ=I32)
                    b.store(b.select(b.icmp_signed(">=", pos, ll.Constant(I32, 3)),
                                     b.sub(pos, ll.Constant(I32, 3)), pos), at)
                    per = b.trunc(b.sdiv(b.mul(t, ll.Constant(I64, 1000)),
                                         b.select(b.icmp_signed(">", tot, ll.Constant(I64, 0)),
                                                  tot, ll.Constant(I64, 1))), I32)
                    pad = b.select(b.icmp_signed("<", per, ll.Constant(I32, 100)),
                                   b.gep(fmt["space"], [zero32, zero32]),
                                   b.gep(fmt["none"], [zero32, zero32]))
                    emit("tail", pad, b.sdiv(per, ll.Constant(I32, 10)),
                         b.srem(per, ll.Constant(I32, 10)))
            _loop(b, n, row)

    _loop(b, b.load(g["count"], typ=I32), pipeline)
    b.ret(b.load(at, typ=I32))

    # halide_profiler_report(uc): the text through halide_print, as Halide's does.
    r = ll.Function(m, ll.FunctionType(ll.VoidType(), [PTR]), name="halide_profiler_report")
    r.linkage = "weak"
    b = ll.IRBuilder(r.append_basic_block("entry"))
    malloc = B.declare("malloc", PTR, [size_t])
    free = B.declare("free", ll.VoidType(), [PTR])
    text = b.call(malloc, [ll.Constant(size_t, 1 << 16)])
    with b.if_then(b.icmp_unsigned("!=", text, ll.Constant(PTR, None))):
        b.call(f, [text, ll.Constant(I32, 1 << 16)])
        b.call(m.globals["halide_print"], [r.args[0], text])
        b.call(free, [text])
    b.ret_void()


def _strcpy(m):
    return m.globals.get("strcpy") or ll.Function(m, ll.FunctionType(PTR, [PTR, PTR]),
                                                  name="strcpy")


def _strcat(m):
    return m.globals.get("strcat") or ll.Function(m, ll.FunctionType(PTR, [PTR, PTR]),
                                                  name="strcat")


def _colon(m):
    g = m.globals.get("webhal.profiler.s.colon") or _string(m, "colon", ": ")
    return g
