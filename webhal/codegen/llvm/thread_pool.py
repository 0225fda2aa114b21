"""halide_do_par_for on a pool of POSIX threads, written as LLVM IR (the host JIT links it; so can
any object whose platform has pthreads).

One job at a time: the caller publishes the job (task, closure, user context, index range), opens
it and bumps a generation counter; caller and the workers that join claim task indices with an
atomic add until the range is used up. The caller then closes the job and waits for the workers
that joined to finish. A worker joins without the mutex: it counts itself active, then reads the
open flag (both sequentially consistent, against the caller's close-then-read-active), so either
the caller waits for it or it sees the job closed and reads nothing of it; the caller never waits
for a worker that was slow to wake (in a browser that can take longer than the job). The mutex
and condition variables serve only threads that stopped spinning: they count themselves as
sleepers, and the other side takes the mutex to wake them only when there are any. (A worker that
found the caller holding the mutex at every job start slept on it and woke tens of microseconds
late, a large share of a short job.) A par_for that finds the pool busy (nested in a task, or
called from another thread meanwhile) runs its tasks in order on its own thread. The first
failing task's code is returned; tasks not yet claimed are then skipped.

Threads: halide_set_num_threads(n) if called, else HL_NUM_THREADS, else one per core
(sysconf), the last two read once; the pool starts workers when first needed and keeps them.
pthread_mutex_t and pthread_cond_t are zero-initialized storage (glibc's and musl's static
initializers are all zeros), 64 bytes each, more than either library needs.
"""

from __future__ import annotations

from llvmlite import ir as ll

from webhal.codegen.llvm.types import I8, I32, PTR

SYNC_BYTES = 64
CACHE_LINE = 64
SPIN = 1 << 18  # checks of a flag before sleeping on a condition variable
# On the host a spinning thread yields its core every YIELD_EVERY checks (a power of two): on a
# machine with more runnable threads than cores, a pure spin held a core that the thread it was
# waiting for (or the caller's next serial step) needed, and two threads ran slower than one.
YIELD_EVERY = 64
SC_NPROCESSORS_ONLN = 84  # glibc's and musl's value
TASK = ll.FunctionType(I32, [PTR, I32, PTR])


class _Pool:
    def __init__(self, m: ll.Module, size_t: ll.IntType, yields: bool):
        self.m, self.size_t = m, size_t
        self.mutex, self.wake, self.done = (self._sync(n) for n in ("mutex", "wake", "done"))
        self.workers, self.generation, self.active, self.open, self.busy, self.requested = (
            self._global(n, I32) for n in ("workers", "generation", "active", "open", "busy",
                                           "requested"))
        # Threads asleep on `wake`, and whether the caller is asleep on `done`.
        self.sleepers, self.caller_asleep = (self._global(n, I32) for n in ("sleepers",
                                                                            "caller_asleep"))
        self.default = self._global("default", I32)  # HL_NUM_THREADS or the cores; 0: not read
        self.task, self.closure, self.uc = (self._global(n, PTR) for n in ("task", "closure",
                                                                            "uc"))
        self.end, self.result = (self._global(n, I32) for n in ("end", "result"))
        self.next = self._own_line("next")
        f = self._declare
        self.lock = f("pthread_mutex_lock", I32, [PTR])
        self.unlock = f("pthread_mutex_unlock", I32, [PTR])
        self.cond_wait = f("pthread_cond_wait", I32, [PTR, PTR])
        self.broadcast = f("pthread_cond_broadcast", I32, [PTR])
        self.create = f("pthread_create", I32, [PTR, PTR, PTR, PTR])
        self.getenv = f("getenv", PTR, [PTR])
        self.sched_yield = f("sched_yield", I32, []) if yields else None
        self.atoi = f("atoi", I32, [PTR])
        self.sysconf = f("sysconf", ll.IntType(64) if size_t.width == 64 else I32, [I32])

    def _sync(self, name: str) -> ll.GlobalVariable:
        t = ll.ArrayType(I8, SYNC_BYTES)
        g = ll.GlobalVariable(self.m, t, name=f"webhal.pool.{name}")
        g.linkage, g.align, g.initializer = "internal", 16, ll.Constant(t, None)
        return g

    def _global(self, name: str, t: ll.Type) -> ll.GlobalVariable:
        g = ll.GlobalVariable(self.m, t, name=f"webhal.pool.{name}")
        g.linkage, g.initializer = "internal", ll.Constant(t, None)
        return g

    def _own_line(self, name: str) -> ll.Value:
        """An i32 alone on its cache line: every claim writes it, and a line shared with the
        job's read-only fields would move between the cores at every task."""
        t = ll.ArrayType(I32, CACHE_LINE // 4)
        g = ll.GlobalVariable(self.m, t, name=f"webhal.pool.{name}")
        g.linkage, g.align, g.initializer = "internal", CACHE_LINE, ll.Constant(t, None)
        return g.gep([ll.Constant(I32, 0), ll.Constant(I32, 0)])

    def _declare(self, name: str, ret: ll.Type, args: list[ll.Type]) -> ll.Function:
        return self.m.globals.get(name) or ll.Function(self.m, ll.FunctionType(ret, args),
                                                       name=name)

    @staticmethod
    def call_task(b: ll.IRBuilder, task, args):
        # An indirect call: llvmlite takes the callee's type from a typed pointer.
        callee = ll.instructions.CastInstr(b.block, "bitcast", task, TASK.as_pointer())
        b._insert(callee)
        return b.call(callee, args)

    def string(self, name: str, text: str) -> ll.Value:
        data = bytearray(text.encode() + b"\0")
        t = ll.ArrayType(I8, len(data))
        g = ll.GlobalVariable(self.m, t, name=name)
        g.global_constant, g.linkage, g.initializer = True, "private", ll.Constant(t, data)
        return g.bitcast(PTR)


def _ld(b: ll.IRBuilder, ptr) -> ll.Value:
    """Load a global or an alloca (pointers are opaque: the type comes from the pointee)."""
    t = ptr.value_type if isinstance(ptr, ll.GlobalVariable) else ptr.allocated_type
    return b.load(ptr, typ=t)


def _entry_alloca(b: ll.IRBuilder, t: ll.Type) -> ll.Value:
    """A stack slot made once per call (an alloca inside a loop would grow the stack)."""
    entry = b.block.function.entry_basic_block
    with b.goto_block(entry):
        b.position_at_start(entry)
        return b.alloca(t)


def _ld_atomic(b: ll.IRBuilder, g: ll.GlobalVariable) -> ll.Value:
    return b.load_atomic(g, "acquire", 4, typ=g.value_type)


def _spin(p: _Pool, b: ll.IRBuilder, keep_spinning) -> None:
    """Check keep_spinning(b) up to SPIN times: a job that arrives (or ends) within a few tens
    of microseconds is seen without the cost of sleeping on a condition variable and being
    woken, which is most of a short job's time otherwise. On the host (p.sched_yield), every
    YIELD_EVERY-th check first yields the core to any other runnable thread."""
    fn = b.block.function
    count = _entry_alloca(b, I32)
    b.store(ll.Constant(I32, 0), count)
    test, again, after = (fn.append_basic_block(n) for n in ("spin.test", "spin.again",
                                                             "spin.end"))
    b.branch(test)
    b.position_at_end(test)
    spins = _ld(b, count)
    b.cbranch(b.icmp_signed("<", spins, ll.Constant(I32, SPIN)), again, after)
    b.position_at_end(again)
    b.store(b.add(spins, ll.Constant(I32, 1)), count)
    if p.sched_yield is not None:
        mask = ll.Constant(I32, YIELD_EVERY - 1)
        with b.if_then(b.icmp_signed("==", b.and_(spins, mask), mask), likely=False):
            b.call(p.sched_yield, [])
    b.cbranch(keep_spinning(b), test, after)
    b.position_at_end(after)


def _while(b: ll.IRBuilder, condition, body) -> None:
    """while condition(b): body(b), with fresh blocks."""
    fn = b.block.function
    test, loop, after = (fn.append_basic_block(n) for n in ("while.test", "while.body",
                                                             "while.end"))
    b.branch(test)
    b.position_at_end(test)
    b.cbranch(condition(b), loop, after)
    b.position_at_end(loop)
    body(b)
    b.branch(test)
    b.position_at_end(after)


def _claim(p: _Pool) -> ll.Function:
    """Run tasks of the published job, claimed one index at a time, until none are left or one
    has failed. The job's fields do not change while anyone claims: they are read once."""
    fn = ll.Function(p.m, ll.FunctionType(ll.VoidType(), []), name="webhal.pool.claim")
    fn.linkage = "internal"
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    task, uc, closure, end = (_ld(b, g) for g in (p.task, p.uc, p.closure, p.end))
    loop, run, stop = (fn.append_basic_block(n) for n in ("claim", "run", "stop"))
    b.branch(loop)
    b.position_at_end(loop)
    result = b.load_atomic(p.result, "monotonic", 4, typ=I32)
    failed = b.icmp_signed("!=", result, ll.Constant(I32, 0))
    index = b.atomic_rmw("add", p.next, ll.Constant(I32, 1), "monotonic")
    used_up = b.icmp_signed(">=", index, end)
    b.cbranch(b.or_(failed, used_up), stop, run)
    b.position_at_end(run)
    code = p.call_task(b, task, [uc, index, closure])
    with b.if_then(b.icmp_signed("!=", code, ll.Constant(I32, 0)), likely=False):
        b.cmpxchg(p.result, ll.Constant(I32, 0), code, "monotonic", "monotonic")
    b.branch(loop)
    b.position_at_end(stop)
    b.ret_void()
    return fn


def _sleep_while(p: _Pool, b: ll.IRBuilder, asleep, condvar, still_waiting) -> None:
    """Block on condvar while still_waiting(b), announced in `asleep` (under the mutex, before
    the last check), so that the thread that ends the wait knows to take the mutex and signal."""
    b.call(p.lock, [p.mutex.bitcast(PTR)])
    b.atomic_rmw("add", asleep, ll.Constant(I32, 1), "seq_cst")
    _while(b, still_waiting, lambda b: b.call(p.cond_wait, [condvar.bitcast(PTR),
                                                            p.mutex.bitcast(PTR)]))
    b.atomic_rmw("sub", asleep, ll.Constant(I32, 1), "seq_cst")
    b.call(p.unlock, [p.mutex.bitcast(PTR)])


def _wake_sleepers(p: _Pool, b: ll.IRBuilder, asleep, condvar) -> None:
    """After a seq_cst write that ends a wait: signal condvar if anyone sleeps on it."""
    sleeping = b.load_atomic(asleep, "seq_cst", 4, typ=I32)
    with b.if_then(b.icmp_signed(">", sleeping, ll.Constant(I32, 0)), likely=False):
        b.call(p.lock, [p.mutex.bitcast(PTR)])
        b.call(p.broadcast, [condvar.bitcast(PTR)])
        b.call(p.unlock, [p.mutex.bitcast(PTR)])


def _worker(p: _Pool, claim: ll.Function) -> ll.Function:
    """A pool thread: wait for a new generation (spinning, then asleep), join its job if it is
    still open, claim tasks, leave (waking the caller when last out and it sleeps), repeat. Its
    argument is the generation current when it was created."""
    fn = ll.Function(p.m, ll.FunctionType(PTR, [PTR]), name="webhal.pool.worker")
    fn.linkage = "internal"
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    seen = b.alloca(I32)
    b.store(b.trunc(b.ptrtoint(fn.args[0], p.size_t), I32), seen)
    forever = fn.append_basic_block("forever")
    b.branch(forever)
    b.position_at_end(forever)

    def no_new_job(b):
        now = b.load_atomic(p.generation, "seq_cst", 4, typ=I32)
        return b.icmp_signed("==", now, _ld(b, seen))

    _spin(p, b, no_new_job)
    with b.if_then(no_new_job(b), likely=False):
        _sleep_while(p, b, p.sleepers, p.wake, no_new_job)
    b.store(b.load_atomic(p.generation, "acquire", 4, typ=I32), seen)
    b.atomic_rmw("add", p.active, ll.Constant(I32, 1), "seq_cst")
    is_open = b.load_atomic(p.open, "seq_cst", 4, typ=I32)
    with b.if_then(b.icmp_signed("!=", is_open, ll.Constant(I32, 0)), likely=True):
        b.call(claim, [])
    before = b.atomic_rmw("sub", p.active, ll.Constant(I32, 1), "seq_cst")
    with b.if_then(b.icmp_signed("==", before, ll.Constant(I32, 1))):
        _wake_sleepers(p, b, p.caller_asleep, p.done)
    b.branch(forever)
    return fn


def _threads_wanted(p: _Pool) -> ll.Function:
    """halide_set_num_threads's value, else HL_NUM_THREADS, else the number of cores: the last
    two read once, when first needed, as Halide's pool does. (Counting cores is not cheap: under
    Emscripten in Node it is os.cpus(), tens of microseconds, which every short job paid.)"""
    fn = ll.Function(p.m, ll.FunctionType(I32, []), name="webhal.pool.threads_wanted")
    fn.linkage = "internal"
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    requested = _ld(b, p.requested)
    with b.if_then(b.icmp_signed(">", requested, ll.Constant(I32, 0))):
        b.ret(requested)
    known = _ld(b, p.default)
    with b.if_then(b.icmp_signed(">", known, ll.Constant(I32, 0)), likely=True):
        b.ret(known)
    text = b.call(p.getenv, [p.string("webhal.pool.env", "HL_NUM_THREADS")])
    with b.if_then(b.icmp_unsigned("!=", text, ll.Constant(PTR, None))):
        n = b.call(p.atoi, [text])
        with b.if_then(b.icmp_signed(">", n, ll.Constant(I32, 0))):
            b.store(n, p.default)
            b.ret(n)
    cores = b.call(p.sysconf, [ll.Constant(I32, SC_NPROCESSORS_ONLN)])
    cores = b.trunc(cores, I32) if cores.type != I32 else cores
    cores = b.select(b.icmp_signed(">", cores, ll.Constant(I32, 0)), cores, ll.Constant(I32, 1))
    b.store(cores, p.default)
    b.ret(cores)
    return fn


def serial_par_for(m: ll.Module, name: str = "halide_do_par_for",
                   linkage: str = "weak") -> ll.Function:
    """Run tasks min .. min + size - 1 in order, stopping at the first failure: the whole
    halide_do_par_for of targets without threads, and the pool's own fallback."""
    fn = ll.Function(m, ll.FunctionType(I32, [PTR, PTR, I32, I32, PTR]), name=name)
    fn.linkage = linkage
    uc, task, lo, extent, closure = fn.args
    entry = fn.append_basic_block("entry")
    loop = fn.append_basic_block("loop")
    done = fn.append_basic_block("done")
    b = ll.IRBuilder(entry)
    end = b.add(lo, extent)
    b.cbranch(b.icmp_signed("<", lo, end), loop, done)
    b.position_at_end(loop)
    i = b.phi(I32)
    i.add_incoming(lo, entry)
    code = _Pool.call_task(b, task, [uc, i, closure])
    failed = b.icmp_signed("!=", code, ll.Constant(I32, 0))
    with b.if_then(failed, likely=False):
        b.ret(code)
    nxt = b.add(i, ll.Constant(I32, 1))
    i.add_incoming(nxt, b.block)
    b.cbranch(b.icmp_signed("<", nxt, end), loop, done)
    b.position_at_end(done)
    b.ret(ll.Constant(I32, 0))
    return fn


def build(m: ll.Module, size_t: ll.IntType, yields: bool = False) -> None:
    """Add halide_do_par_for (weak, like the rest of the runtime), halide_set_num_threads,
    webhal_thread_pool_size and webhal_thread_pool_reread_default. yields: spinning threads
    call sched_yield now and then (the host; wasm's pool, on Emscripten's workers, does not)."""
    p = _Pool(m, size_t, yields)
    claim = _claim(p)
    worker = _worker(p, claim)
    wanted = _threads_wanted(p)

    pool_size = ll.Function(m, ll.FunctionType(I32, []), name="webhal_thread_pool_size")
    pool_size.linkage = "weak"  # threads a job can use now: the workers started plus the caller
    b = ll.IRBuilder(pool_size.append_basic_block("entry"))
    b.ret(b.add(_ld(b, p.workers), ll.Constant(I32, 1)))

    forget = ll.Function(m, ll.FunctionType(ll.VoidType(), []),
                         name="webhal_thread_pool_reread_default")
    forget.linkage = "weak"  # the host JIT's: a Python session may change HL_NUM_THREADS
    b = ll.IRBuilder(forget.append_basic_block("entry"))
    b.store(ll.Constant(I32, 0), p.default)
    b.ret_void()

    setter = ll.Function(m, ll.FunctionType(I32, [I32]), name="halide_set_num_threads")
    setter.linkage = "weak"
    b = ll.IRBuilder(setter.append_basic_block("entry"))
    old = b.call(wanted, [])
    b.store(setter.args[0], p.requested)
    b.ret(old)

    in_order = serial_par_for(m, "webhal.pool.in_order", "internal")
    fn = ll.Function(m, ll.FunctionType(I32, [PTR, PTR, I32, I32, PTR]),
                     name="halide_do_par_for")
    fn.linkage = "weak"
    uc, task, lo, size, closure = fn.args
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    tid = b.alloca(ll.ArrayType(I8, 16))  # a pthread_t, which nobody joins
    end = b.add(lo, size)
    serial = fn.append_basic_block("serial")
    helpers = b.sub(b.call(wanted, []), ll.Constant(I32, 1))
    helpers = b.select(b.icmp_signed("<", helpers, b.sub(size, ll.Constant(I32, 1))), helpers,
                       b.sub(size, ll.Constant(I32, 1)))
    try_pool = fn.append_basic_block("try_pool")
    b.cbranch(b.icmp_signed(">", helpers, ll.Constant(I32, 0)), try_pool, serial)
    b.position_at_end(try_pool)
    taken = b.cmpxchg(p.busy, ll.Constant(I32, 0), ll.Constant(I32, 1), "acquire", "monotonic")
    publish = fn.append_basic_block("publish")
    b.cbranch(b.extract_value(taken, 1), publish, serial)

    b.position_at_end(publish)
    gen = _ld_atomic(b, p.generation)
    gen_arg = b.inttoptr(b.zext(gen, size_t) if size_t.width > 32 else gen, PTR)

    def start_one(b):
        made = b.call(p.create, [b.bitcast(tid, PTR), ll.Constant(PTR, None),
                                 worker.bitcast(PTR), gen_arg])
        with b.if_then(b.icmp_signed("!=", made, ll.Constant(I32, 0)), likely=False):
            b.branch(give_up)  # no more threads (or none at all): go on with those there are
        b.store(b.add(_ld(b, p.workers), ll.Constant(I32, 1)), p.workers)

    give_up = fn.append_basic_block("create_failed")
    _while(b, lambda b: b.icmp_signed("<", _ld(b, p.workers), helpers), start_one)
    started = fn.append_basic_block("started")
    b.branch(started)
    b.position_at_end(give_up)
    b.branch(started)
    b.position_at_end(started)
    b.store(task, p.task)
    b.store(closure, p.closure)
    b.store(uc, p.uc)
    b.store(lo, p.next)
    b.store(end, p.end)
    b.store(ll.Constant(I32, 0), p.result)
    b.store_atomic(ll.Constant(I32, 1), p.open, "seq_cst", 4)
    b.atomic_rmw("add", p.generation, ll.Constant(I32, 1), "seq_cst")
    _wake_sleepers(p, b, p.sleepers, p.wake)
    b.call(claim, [])
    b.store_atomic(ll.Constant(I32, 0), p.open, "seq_cst", 4)  # no one joins now

    def workers_active(b):
        return b.icmp_signed(">", b.load_atomic(p.active, "seq_cst", 4, typ=I32),
                             ll.Constant(I32, 0))

    _spin(p, b, workers_active)
    with b.if_then(workers_active(b), likely=False):
        _sleep_while(p, b, p.caller_asleep, p.done, workers_active)
    result = b.load_atomic(p.result, "monotonic", 4, typ=I32)
    b.store_atomic(ll.Constant(I32, 0), p.busy, "release", 4)
    b.ret(result)

    b.position_at_end(serial)
    b.ret(b.call(in_order, [uc, task, lo, size, closure]))
