"""The same GPU pipelines through webhal's two GPU backends, side by side in one run:
`python -m benchmarks.gpu_apis [--size N] [--torch]`.

float32 copy, brighten+clamp and 3x3 box blur (clamped edges) of an N x N image, scheduled the
same way for both: SPIR-V through webhal's Vulkan runtime (host-vulkan) and WGSL through wgpu-py
(host-webgpu; on Vulkan itself here). With --torch, PyTorch CUDA runs the same three (copy,
fused multiply-add and clamp, conv2d with a 3x3 box kernel after edge padding) where it has a
GPU. Each figure is the time per run of the kernels alone (many dispatches recorded in one
submission, no copies, no host code), min / median / max over rounds. Ratios are webhal Vulkan
time over each peer's. With --hand, hand-written WGSL kernels that read and write vec4<f32>
(copy and brighten; wgpu-py, so Vulkan where that is wgpu's backend) are timed the same way, the
floor for webhal's kernels. Writes benchmarks/results/gpu_apis.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

import webhal as hl
from webhal.jit import compile_jit

HERE = os.path.dirname(os.path.abspath(__file__))
x, y, xo, yo, xi, yi, xv = (hl.Var(n) for n in ("x", "y", "xo", "yo", "xi", "yi", "xv"))
PIPELINES = ("copy", "brighten", "blur3x3")


def pipeline(name: str, inp: hl.ImageParam) -> hl.Func:
    f = hl.Func(name)
    if name == "copy":
        f[x, y] = inp[x, y]
    elif name == "brighten":
        f[x, y] = hl.clamp(inp[x, y] * 1.5 + hl.f32(0.1), 0.0, 1.0)
    else:
        clamped = hl.BoundaryConditions.repeat_edge(inp)
        f[x, y] = sum(clamped[x + dx, y + dy] for dy in (-1, 0, 1) for dx in (-1, 0, 1)) / 9.0
    f.split(x, x, xv, 4).vectorize(xv).gpu_tile(x, y, xo, yo, xi, yi, 64, 4)
    return f


def spread(samples: list[float]) -> dict:
    ms = [s * 1e3 for s in samples]
    return {"min_ms": min(ms), "median_ms": statistics.median(ms), "max_ms": max(ms)}


def webhal_times(target: str, names, n: int, repeats: int, rounds: int) -> dict:
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    inp.set(hl.Buffer(np.random.default_rng(1).random((n, n), dtype=np.float32)))
    out = {}
    for name in names:
        f = pipeline(name, inp)
        p = hl.Pipeline(f)
        compiled, _ = compile_jit(p, hl.Target(target))
        result = np.asarray(p.realize([n, n], hl.Target(target)))
        compiled.gpu.replay(2)  # warm up
        out[name] = spread([compiled.gpu.replay(repeats) for _ in range(rounds)])
        out[name]["checksum"] = float(result[:64, :64].sum())
    return out


HAND_WGSL = """
@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@compute @workgroup_size(64, 4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.y * WIDTH4 + id.x;
    dst[i] = BODY;
}
"""
HAND_BODIES = {"copy": "src[i]",
               "brighten": "clamp(src[i] * 1.5 + vec4<f32>(0.1), vec4<f32>(0.0), vec4<f32>(1.0))"}


def hand_times(names, n: int, repeats: int, rounds: int) -> dict:
    """Hand-written vec4 WGSL kernels (one invocation per 4 pixels, 64x4 workgroups, as the
    webhal schedules), `repeats` dispatches per submission."""
    import wgpu

    from webhal.runtime.webgpu import device
    dev = device()
    usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_DST | wgpu.BufferUsage.COPY_SRC
    src = dev.create_buffer(size=n * n * 4, usage=usage)
    dst = dev.create_buffer(size=n * n * 4, usage=usage)
    dev.queue.write_buffer(src, 0, np.random.default_rng(1).random((n, n), dtype=np.float32))
    out = {}
    for name in names:
        if name not in HAND_BODIES:
            continue
        code = HAND_WGSL.replace("WIDTH4", f"{n // 4}u").replace("BODY", HAND_BODIES[name])
        pipe = dev.create_compute_pipeline(layout="auto", compute={
            "module": dev.create_shader_module(code=code), "entry_point": "main"})
        group = dev.create_bind_group(layout=pipe.get_bind_group_layout(0), entries=[
            {"binding": 0, "resource": {"buffer": src}},
            {"binding": 1, "resource": {"buffer": dst}}])

        def run(k: int, pipe=pipe, group=group) -> float:
            enc = dev.create_command_encoder()
            p = enc.begin_compute_pass()
            p.set_pipeline(pipe)
            p.set_bind_group(0, group)
            for _ in range(k):
                p.dispatch_workgroups(n // 4 // 64, n // 4)
            p.end()
            buf = enc.finish()
            start = time.perf_counter()
            dev.queue.submit([buf])
            dev.queue.read_buffer(dst, 0, 4)  # waits for the submission
            return (time.perf_counter() - start) / k
        run(2)
        out[name] = spread([run(repeats) for _ in range(rounds)])
    return out


def torch_times(names, n: int, repeats: int, rounds: int) -> dict | None:
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    a = torch.rand((n, n), device="cuda", dtype=torch.float32)
    box = torch.full((1, 1, 3, 3), 1.0 / 9.0, device="cuda")
    ops = {"copy": lambda: a.clone(),
           "brighten": lambda: torch.clamp(a * 1.5 + 0.1, 0.0, 1.0),
           "blur3x3": lambda: torch.nn.functional.conv2d(
               torch.nn.functional.pad(a[None, None], (1, 1, 1, 1), mode="replicate"), box)}
    out = {}
    for name, op in ops.items():
        if name not in names:
            continue
        op()
        torch.cuda.synchronize()
        samples = []
        for _ in range(rounds):
            start = time.perf_counter()
            for _ in range(repeats):
                op()
            torch.cuda.synchronize()
            samples.append((time.perf_counter() - start) / repeats)
        out[name] = spread(samples)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=8192)
    parser.add_argument("--repeats", type=int, default=50, help="dispatches per submission")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--torch", action="store_true", help="PyTorch CUDA as a third peer")
    parser.add_argument("--hand", action="store_true", help="hand vec4 WGSL kernels too")
    parser.add_argument("--only", choices=PIPELINES, action="append", help="pipelines to run")
    args = parser.parse_args(argv)
    names = tuple(args.only or PIPELINES)
    from webhal.runtime.vulkan import device_name
    from webhal.runtime.webgpu import adapter_name
    report = {"size": args.size, "vulkan_device": device_name(),
              "webgpu_adapter": adapter_name(), "load": os.getloadavg()[0]}
    print(f"{args.size}x{args.size} float32; Vulkan: {report['vulkan_device']}; WebGPU: "
          f"{report['webgpu_adapter']}; load {report['load']:.2f}")
    report["vulkan"] = webhal_times("host-vulkan", names, args.size, args.repeats, args.rounds)
    report["webgpu"] = webhal_times("host-webgpu", names, args.size, args.repeats, args.rounds)
    report["torch"] = torch_times(names, args.size, args.repeats, args.rounds) \
        if args.torch else None
    report["hand"] = hand_times(names, args.size, args.repeats, args.rounds) \
        if args.hand else None
    for name in names:
        v, w = report["vulkan"][name], report["webgpu"][name]
        line = (f"{name:9} vulkan {v['median_ms']:.3f} ms [{v['min_ms']:.3f}-{v['max_ms']:.3f}]"
                f"  webgpu {w['median_ms']:.3f} ms [{w['min_ms']:.3f}-{w['max_ms']:.3f}]"
                f"  vulkan/webgpu {v['median_ms'] / w['median_ms']:.2f}")
        if report["torch"]:
            t = report["torch"][name]
            line += (f"  torch {t['median_ms']:.3f} ms [{t['min_ms']:.3f}-{t['max_ms']:.3f}]"
                     f"  vulkan/torch {v['median_ms'] / t['median_ms']:.2f}")
        if report["hand"] and name in report["hand"]:
            h = report["hand"][name]
            line += (f"  hand vec4 {h['median_ms']:.3f} ms [{h['min_ms']:.3f}-{h['max_ms']:.3f}]"
                     f"  vulkan/hand {v['median_ms'] / h['median_ms']:.2f}")
        print(line)
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "gpu_apis.json"), "w") as f:
        json.dump(report, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
