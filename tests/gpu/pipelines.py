"""GPU-scheduled pipelines shared by the WebGPU tests (and run in a SwiftShader subprocess)."""

import numpy as np

import webhal as hl

x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")


def brighten(size=(53, 37)):
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    gain = hl.Param(hl.Float(32), "gain", 1.5)
    f = hl.Func("brighten")
    f[x, y] = hl.clamp(inp[x, y] * gain, 0.0, 1.0) + hl.f32(x % 3)
    f.gpu_tile(x, y, xo, yo, xi, yi, 16, 8)
    inp.set(hl.Buffer(np.random.default_rng(1).random(size[::-1], dtype=np.float32)))
    return f, size


def blur_f32(size=(61, 45)):
    """Two GPU stages with clamped edges: the producer at root on the GPU, the consumer too."""
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    bx, by = hl.Func("blur_x"), hl.Func("blur_y")
    bx[x, y] = (clamped[x - 1, y] + clamped[x, y] + clamped[x + 1, y]) / 3.0
    by[x, y] = (bx[x, y - 1] + bx[x, y] + bx[x, y + 1]) / 3.0
    bx.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    by.gpu_tile(x, y, xo, yo, xi, yi, 16, 4)
    inp.set(hl.Buffer(np.random.default_rng(2).random(size[::-1], dtype=np.float32)))
    return by, size


def integer_ops(size=(40, 30)):
    """int32 arithmetic with Halide's division and modulo, shifts, bit ops, select."""
    inp = hl.ImageParam(hl.Int(32), 2, "input")
    f = hl.Func("ops")
    v = inp[x, y]
    f[x, y] = (v / (x - 7) + v % (y - 5) + (v >> 3) - (v << 2) + (v & 0xFF) +
               hl.select(v > 0, v / 3, -v % 7) + hl.min(v, x * y) + hl.abs(v % 100))
    f.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    data = np.random.default_rng(3).integers(-100000, 100000, size[::-1], dtype=np.int32)
    inp.set(hl.Buffer(data))
    return f, size


def mixed_cpu_gpu(size=(33, 21)):
    """A GPU producer read by a CPU consumer read by a GPU consumer."""
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    a, b, out = hl.Func("a"), hl.Func("b"), hl.Func("out")
    a[x, y] = inp[x, y] * 2.0
    b[x, y] = a[x, y] + hl.f32(y)
    out[x, y] = hl.sqrt(b[x, y]) + a[x, y]
    a.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    b.compute_root().parallel(y)
    out.gpu_tile(x, y, xo, yo, xi, yi, 4, 4)
    inp.set(hl.Buffer(np.random.default_rng(4).random(size[::-1], dtype=np.float32)))
    return out, size


def reduction_on_gpu(size=(24, 16)):
    """Each invocation runs an RDom loop: a row sum and a running maximum."""
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    r = hl.RDom([(0, 8)], "r")
    f = hl.Func("window")
    f[x, y] = 0.0
    f[x, y] += inp[x + r.x, y] * 0.5
    f.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    f.update(0).gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    data = np.random.default_rng(5).random((size[1], size[0] + 8), dtype=np.float32)
    inp.set(hl.Buffer(data))
    return f, size


ALL = [brighten, blur_f32, integer_ops, mixed_cpu_gpu, reduction_on_gpu]


def blur_u8(vectorized: bool, size=(128, 100)):
    """The demo's blur (uint8 in and out, uint16 between) on the GPU. Vectorized by 4 (and 2
    for the uint16 stage), each invocation writes whole 32-bit words; scalar, invocations share
    words and update their bytes atomically."""
    xv = hl.Var("xv")
    inp = hl.ImageParam(hl.UInt(8), 2, "image")
    bx, by = hl.Func("blur_x"), hl.Func("blur_y")
    bx[x, y] = (hl.u16(inp[x, y]) + inp[x + 1, y] + inp[x + 2, y]) / 3
    by[x, y] = hl.u8((bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3)
    if vectorized:
        bx.compute_root().split(x, x, xv, 2).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 16, 8)
        by.split(x, x, xv, 4).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 16, 8)
    else:
        bx.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 16, 8)
        by.gpu_tile(x, y, xo, yo, xi, yi, 16, 8)
    data = np.random.default_rng(6).integers(0, 256, (size[1] + 2, size[0] + 2), dtype=np.uint8)
    inp.set(hl.Buffer(data))
    return by, size


def blur_u8_packed(size=(128, 100)):
    return blur_u8(True, size)


def blur_u8_atomic(size=(128, 100)):
    return blur_u8(False, size)


def narrow_int_ops(size=(37, 19)):
    """int8/int16/uint16 arithmetic wraps at its width on the GPU as on the CPU."""
    inp = hl.ImageParam(hl.Int(16), 2, "input")
    f = hl.Func("narrow")
    v = inp[x, y]
    a = hl.i8(v) * hl.i8(3) + hl.i8(x)
    b = hl.u16(v) * hl.u16(7) - hl.u16(y * 1000)
    f[x, y] = hl.i16(a) + hl.i16(b / hl.u16(5)) - (v / 7) + (v % hl.i16(-9))
    f.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    data = np.random.default_rng(7).integers(-30000, 30000, size[::-1], dtype=np.int16)
    inp.set(hl.Buffer(data))
    return f, size


ALL += [blur_u8_packed, blur_u8_atomic, narrow_int_ops]


def blur_shared_memory(size=(61, 45)):
    """The horizontal pass computed per workgroup in shared memory (compute_at a GPU block
    loop), with its own thread loops; a barrier separates it from the vertical pass."""
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    bx, by = hl.Func("blur_x"), hl.Func("blur_y")
    bx[x, y] = (clamped[x - 1, y] + clamped[x, y] + clamped[x + 1, y]) / 3.0
    by[x, y] = (bx[x, y - 1] + bx[x, y] + bx[x, y + 1]) / 3.0
    by.gpu_tile(x, y, xo, yo, xi, yi, 16, 8)
    bx.compute_at(by, xo).gpu_threads(x, y)
    inp.set(hl.Buffer(np.random.default_rng(8).random(size[::-1], dtype=np.float32)))
    return by, size


def u16_shared_memory(size=(50, 30)):
    """uint16 in shared memory: one element per word there, packed words in buffers."""
    inp = hl.ImageParam(hl.UInt(16), 2, "input")
    bx, by = hl.Func("sum_x"), hl.Func("sum_y")
    bx[x, y] = inp[x, y] + inp[x + 1, y] * 3
    by[x, y] = bx[x, y] + bx[x, y + 1] - inp[x, y]
    by.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    bx.compute_at(by, xo).gpu_threads(x, y)
    data = np.random.default_rng(9).integers(0, 65536, (size[1] + 1, size[0] + 1),
                                             dtype=np.uint16)
    inp.set(hl.Buffer(data))
    return by, size


ALL += [blur_shared_memory, u16_shared_memory]
