"""The parts of webhal's runtime written as LLVM IR, linked into objects for the host JIT and
static libraries: aligned allocation, halide_do_par_for (serial, or on a pthread pool: see
thread_pool.py), and error functions that
format with snprintf and report through halide_error (weak, so users can override it, as with
Halide's runtime)."""

from __future__ import annotations

from llvmlite import ir as ll

from webhal import abi
from webhal.codegen.llvm import thread_pool
from webhal.codegen.llvm.target_machine import target_machine, triple
from webhal.codegen.llvm.types import I8, I32, I64, PTR, abi_type

ALIGNMENT = 128


def _allocation(m: ll.Module, size_t: ll.IntType) -> None:
    malloc = ll.Function(m, ll.FunctionType(PTR, [size_t]), name="malloc")
    free = ll.Function(m, ll.FunctionType(ll.VoidType(), [PTR]), name="free")
    word = size_t.width // 8
    # halide_malloc: over-allocate, align to ALIGNMENT, keep malloc's pointer just before.
    fn = ll.Function(m, ll.FunctionType(PTR, [PTR, size_t]), name="halide_malloc")
    fn.linkage = "weak"
    b = ll.IRBuilder(fn.append_basic_block())
    raw = b.call(malloc, [b.add(fn.args[1], ll.Constant(size_t, ALIGNMENT + word))])
    with b.if_then(b.icmp_unsigned("==", raw, ll.Constant(PTR, None)), likely=False):
        b.ret(ll.Constant(PTR, None))
    addr = b.ptrtoint(raw, size_t)
    aligned = b.and_(b.add(addr, ll.Constant(size_t, ALIGNMENT + word - 1)),
                     ll.Constant(size_t, -ALIGNMENT))
    result = b.inttoptr(aligned, PTR)
    slot = b.inttoptr(b.sub(aligned, ll.Constant(size_t, word)), PTR)
    b.store(raw, slot)
    b.ret(result)
    fn = ll.Function(m, ll.FunctionType(ll.VoidType(), [PTR, PTR]), name="halide_free")
    fn.linkage = "weak"
    b = ll.IRBuilder(fn.append_basic_block())
    with b.if_then(b.icmp_unsigned("==", fn.args[1], ll.Constant(PTR, None))):
        b.ret_void()
    slot = b.inttoptr(b.sub(b.ptrtoint(fn.args[1], size_t), ll.Constant(size_t, word)), PTR)
    b.call(free, [b.load(slot, typ=PTR)])
    b.ret_void()


# The text each error function reports (its parameters are abi.ERROR_FUNCTIONS').
_FORMATS = {
    "halide_error_access_out_of_bounds":
        "%s is accessed at %d..%d, outside %d..%d in dimension %d",
    "halide_error_bad_type": "%s has type %s, but the buffer passed in has type %s",
    "halide_error_bad_dimensions": "%s has %d dimensions, the buffer %d",
    "halide_error_constraint_violated": "constraint %s (%d) == %s (%d)",
    "halide_error_buffer_argument_is_null": "buffer argument %s is NULL",
    "halide_error_host_is_null": "buffer %s has no host memory",
    "halide_error_out_of_memory": "out of memory",
    "halide_error_explicit_bounds_too_small":
        "Bounds given for %s in %s (from %d to %d) do not cover required region "
        "(from %d to %d)",
    "halide_error_specialize_fail": "A schedule specialized with specialize_fail() was chosen: %s",
}


# The scalar types a buffer check may report, by their packed codes (code | bits << 8 | 1 << 16).
_TYPE_CODES = [abi.TYPE_CODES[kind] | bits << 8 | 1 << 16
               for kind, widths in (("int", (8, 16, 32, 64)), ("uint", (1, 8, 16, 32, 64)),
                                    ("float", (16, 32, 64)))
               for bits in widths]


def _type_name(b: ll.IRBuilder, names: dict, packed: ll.Value) -> ll.Value:
    """The name of a packed halide_type_t (uint16 for 0x11001), for messages in C and JS."""
    name = names[None]
    for code in _TYPE_CODES:
        name = b.select(b.icmp_unsigned("==", packed, ll.Constant(I32, code)), names[code], name)
    return name


def _string(m: ll.Module, name: str, text: str) -> ll.Value:
    data = bytearray(text.encode() + b"\0")
    g = ll.GlobalVariable(m, ll.ArrayType(I8, len(data)), name=name)
    g.global_constant, g.linkage = True, "private"
    g.initializer = ll.Constant(ll.ArrayType(I8, len(data)), data)
    return g.bitcast(PTR)


def _errors(m: ll.Module, size_t: ll.IntType) -> None:
    snprintf = ll.Function(m, ll.FunctionType(I32, [PTR, size_t, PTR], var_arg=True),
                           name="snprintf")
    fputs = ll.Function(m, ll.FunctionType(I32, [PTR, PTR]), name="fputs")
    stderr = ll.GlobalVariable(m, PTR, name="stderr")
    stderr.linkage = "external"
    halide_error = ll.Function(m, ll.FunctionType(ll.VoidType(), [PTR, PTR]),
                               name="halide_error")
    halide_error.linkage = "weak"
    b = ll.IRBuilder(halide_error.append_basic_block())
    b.call(fputs, [halide_error.args[1], b.load(stderr, typ=PTR)])
    b.call(fputs, [_string(m, ".newline", "\n"), b.load(stderr, typ=PTR)])
    b.ret_void()
    # Pointers to each name's first character, so that select sees one pointer type.
    zero = ll.Constant(I32, 0)
    type_names = {c: _string(m, f".type.{abi.type_name(c)}", abi.type_name(c)).gep([zero, zero])
                  for c in _TYPE_CODES}
    type_names[None] = _string(m, ".type.other", "another type").gep([zero, zero])
    for name, fmt in _FORMATS.items():
        types = [abi_type(kind) for _, kind in abi.ERROR_FUNCTIONS[name]]
        fn = ll.Function(m, ll.FunctionType(I32, [PTR, *types]), name=name)
        fn.linkage = "weak"
        b = ll.IRBuilder(fn.append_basic_block())
        buf = b.alloca(ll.ArrayType(I8, 512))
        args = list(fn.args[1:])
        if name == "halide_error_access_out_of_bounds":  # name, min, max, lo, hi, dim
            args = [args[0], args[2], args[3], args[4], args[5], args[1]]
        if name == "halide_error_bad_type":  # name, given, correct: said correct first
            args = [args[0], _type_name(b, type_names, args[2]),
                    _type_name(b, type_names, args[1])]
        b.call(snprintf, [b.bitcast(buf, PTR), ll.Constant(size_t, 512),
                          _string(m, f".fmt.{name}", "Error: " + fmt), *args])
        b.call(halide_error, [fn.args[0], b.bitcast(buf, PTR)])
        b.ret(ll.Constant(I32, abi.error_code(name)))


_LINE = 1024  # bytes of one printed line or requirement message, at most


def _printing(m: ll.Module, size_t: ll.IntType) -> None:
    """halide_print (fputs to stdout, weak); webhal_print, which formats its pieces with
    snprintf as abi.PRINT_KINDS says and hands the line to halide_print; and
    webhal_error_requirement_failed, whose message goes to halide_error the same way."""
    snprintf = m.globals.get("snprintf") or ll.Function(
        m, ll.FunctionType(I32, [PTR, size_t, PTR], var_arg=True), name="snprintf")
    fputs = m.globals.get("fputs") or ll.Function(m, ll.FunctionType(I32, [PTR, PTR]),
                                                  name="fputs")
    stdout = ll.GlobalVariable(m, PTR, name="stdout")
    stdout.linkage = "external"
    halide_print = ll.Function(m, ll.FunctionType(ll.VoidType(), [PTR, PTR]), name="halide_print")
    halide_print.linkage = "weak"
    b = ll.IRBuilder(halide_print.append_basic_block())
    b.call(fputs, [halide_print.args[1], b.load(stdout, typ=PTR)])
    b.ret_void()
    fmt = _formatter(m, size_t, snprintf)

    fn = ll.Function(m, ll.FunctionType(I32, [PTR, PTR, PTR]), name=abi.PRINT_FUNCTION)
    fn.linkage = "weak"
    uc, kinds, values = fn.args
    b = ll.IRBuilder(fn.append_basic_block())
    line = b.alloca(ll.ArrayType(I8, _LINE))
    buf = b.bitcast(line, PTR)
    zero = ll.Constant(I32, 0)
    at = b.call(fmt, [buf, zero, kinds, values])
    b.store(ll.Constant(I8, ord("\n")), b.gep(line, [zero, at]))
    b.store(ll.Constant(I8, 0), b.gep(line, [zero, b.add(at, ll.Constant(I32, 1))]))
    b.call(halide_print, [uc, buf])
    b.ret(ll.Constant(I32, 0))

    fn = ll.Function(m, ll.FunctionType(I32, [PTR, PTR, PTR, PTR]),
                     name=abi.REQUIREMENT_FUNCTION)
    fn.linkage = "weak"
    uc, condition, kinds, values = fn.args
    b = ll.IRBuilder(fn.append_basic_block())
    line = b.alloca(ll.ArrayType(I8, _LINE))
    buf = b.bitcast(line, PTR)
    head = _string(m, ".fmt.requirement", "Error: " + abi.requirement_message("(%s)", "")
                   .replace("(%s)", "%s"))  # the condition's text comes parenthesized
    n = b.call(snprintf, [buf, ll.Constant(size_t, _LINE), head, condition])
    limit = ll.Constant(I32, _LINE - 2)
    n = b.select(b.icmp_signed(">", n, limit), limit, n)
    at = b.call(fmt, [buf, n, kinds, values])
    b.store(ll.Constant(I8, 0), b.gep(line, [zero, at]))
    b.call(m.globals["halide_error"], [uc, buf])
    b.ret(ll.Constant(I32, abi.error_code(abi.REQUIREMENT_FUNCTION)))


def _formatter(m: ll.Module, size_t: ll.IntType, snprintf) -> ll.Function:
    """int webhal.format(char *buf, int at, const char *kinds, const int64_t *values): the
    pieces written from buf[at] on (NUL-terminated, within _LINE - 2 bytes); the new end."""
    fn = ll.Function(m, ll.FunctionType(I32, [PTR, I32, PTR, PTR]), name="webhal.format")
    fn.linkage = "internal"
    buf, start, kinds, values = fn.args
    entry = fn.append_basic_block("entry")
    head, body, done = (fn.append_basic_block(n) for n in ("head", "body", "done"))
    b = ll.IRBuilder(entry)
    pos = b.alloca(I32)
    i = b.alloca(I32)
    written = b.alloca(I32)
    b.store(start, pos)
    b.store(ll.Constant(I32, 0), i)
    b.branch(head)
    b.position_at_end(head)
    k = b.load(i, typ=I32)
    c = b.load(b.gep(kinds, [k], source_etype=I8), typ=I8)
    b.cbranch(b.icmp_unsigned("==", c, ll.Constant(I8, 0)), done, body)
    b.position_at_end(body)
    w = b.load(b.gep(values, [k], source_etype=I64), typ=I64)
    at = b.load(pos, typ=I32)
    dst = b.gep(buf, [at], source_etype=I8)
    room = b.sub(ll.Constant(I32, _LINE), at)
    room = b.zext(room, size_t) if size_t.width > 32 else room

    def is_(letters):
        r = ll.Constant(ll.IntType(1), 0)
        for letter in letters:
            r = b.or_(r, b.icmp_unsigned("==", c, ll.Constant(I8, ord(letter))))
        return r

    texts: dict[str, ll.Value] = {}

    def text(t):  # a pointer to the first character, so that select sees one type
        if t not in texts:
            zero = ll.Constant(I32, 0)
            texts[t] = _string(m, f".print.{t.strip('%')}", t).gep([zero, zero])
        return texts[t]

    with b.if_else(is_("fd")) as (floating, other):
        with floating:
            f = b.select(is_("f"), text("%f"), text("%e"))
            b.store(b.call(snprintf, [dst, room, f, b.bitcast(w, ll.DoubleType())]), written)
        with other:
            with b.if_else(is_("iu")) as (integer, pointer):
                with integer:
                    f = b.select(is_("i"), text("%lld"), text("%llu"))
                    b.store(b.call(snprintf, [dst, room, f, w]), written)
                with pointer:
                    flag = b.select(b.icmp_unsigned("!=", w, ll.Constant(I64, 0)),
                                    text("true"), text("false"))
                    p = b.select(is_("s"), b.inttoptr(b.trunc(w, size_t) if size_t.width < 64
                                                      else w, PTR), flag)
                    b.store(b.call(snprintf, [dst, room, text("%s"), p]), written)
    at = b.add(at, b.load(written, typ=I32))
    limit = ll.Constant(I32, _LINE - 2)
    b.store(b.select(b.icmp_signed(">", at, limit), limit, at), pos)
    b.store(b.add(k, ll.Constant(I32, 1)), i)
    b.branch(head)
    b.position_at_end(done)
    b.ret(b.load(pos, typ=I32))
    return fn


def runtime_module(target, parts: tuple[str, ...] = ("allocation",)) -> ll.Module:
    """A module with the runtime parts asked for: allocation, par_for (serial), thread_pool,
    errors, profiler (needs errors)."""
    m = ll.Module(name="webhal_runtime")
    m.triple = triple(target)
    m.data_layout = str(target_machine(target).target_data)
    size_t = I32 if target.bits == 32 else I64
    if "allocation" in parts:
        _allocation(m, size_t)
    if "par_for" in parts:
        thread_pool.serial_par_for(m)
    if "thread_pool" in parts:  # halide_do_par_for on pthreads, halide_set_num_threads
        thread_pool.build(m, size_t, yields=not target.is_wasm)
    if "errors" in parts:
        _errors(m, size_t)
        _printing(m, size_t)
    if "profiler" in parts:  # after errors: it prints through halide_print
        from webhal.codegen.llvm import profiler
        profiler.build(m, target)
    return m
