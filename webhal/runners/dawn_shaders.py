"""WGSL checked by Dawn's compiler (Tint), the one in Chromium and in dawn.node.

naga (wgpu-py) and Tint disagree at the edges of WGSL (constant expressions, uniformity,
limits), so a module that wgpu-py runs may fail in a browser. `DawnShaderChecker` keeps one
Node process with dawn.node open and, for each module, does what a WebGPU runtime does before
its first dispatch: creates the shader module and one compute pipeline per kernel of the
manifest (layout "auto", workgroup sizes through the `override` constants), and returns every
error message Dawn gives, with the WGSL line it points at.
"""

from __future__ import annotations

import json
import os
import pathlib
import queue
import subprocess
import tempfile
import threading
from dataclasses import dataclass

from webhal.errors import ToolchainError
from webhal.glue import package_data
from webhal.runners.node import node_env
from webhal.toolchain.hosts import find_node
from webhal.toolchain.webgpu import DAWN_NODE_HINT

# One JSON request per line ({"code", "kernels": [{"name", "workgroup_size", "constants"}],
# "features"}), one JSON reply per line ({"errors": [...], "unsupported": [...]}: features the
# adapter lacks and kernels beyond its limits, which are valid WGSL it cannot run).
# Each request gets a device of its own, destroyed after it: dawn.node 0.x on SwiftShader
# crashes or hangs when one device compiles pipelines of several modules in a row, and its
# createComputePipelineAsync crashes outright, so pipelines are created synchronously.
_SCRIPT = r"""
import { createRequire } from 'node:module';
import readline from 'node:readline';
const require = createRequire(import.meta.url);
const { create, globals } = require(process.env.HL_WEBGPU_NODE_BINDINGS);
Object.assign(globalThis, globals);
const gpu = create([]);
// The limits and their check are the JavaScript runtime's own (runtime_js/webgpu.js).
const { COMPUTE_LIMITS, checkLimits } = await import(process.argv[2]);

async function check(req) {
  const adapter = await gpu.requestAdapter();
  if (!adapter) return { fatal: 'dawn.node offered no adapter' };
  const unsupported = req.features.filter((f) => !adapter.features.has(f));
  if (unsupported.length) return { errors: [], unsupported };
  const requiredLimits = Object.fromEntries(COMPUTE_LIMITS.map((l) => [l, adapter.limits[l]]));
  const device = await adapter.requestDevice({ requiredFeatures: req.features, requiredLimits });
  try {
    return await compile(device, req);
  } finally {
    device.destroy();
  }
}

async function compile(device, req) {
  const errors = [];
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code: req.code });
  const info = await module.getCompilationInfo();
  for (const m of info.messages) {
    if (m.type === 'error') errors.push(`${m.lineNum}:${m.linePos}: ${m.message}`);
  }
  const moduleError = await device.popErrorScope();
  if (moduleError && !errors.length) errors.push(moduleError.message);
  if (errors.length) return { errors };
  const unsupported = [];
  for (const k of req.kernels) {
    const beyond = checkLimits(device.limits, k);
    if (beyond) {
      unsupported.push(beyond);
      continue;
    }
    device.pushErrorScope('validation');
    device.createComputePipeline({ layout: 'auto',
      compute: { module, entryPoint: k.name, constants: k.constants } });
    const e = await device.popErrorScope();
    if (e) errors.push(`kernel ${k.name}: ${e.message}`);
  }
  return { errors, unsupported };
}

for await (const line of readline.createInterface({ input: process.stdin })) {
  let reply;
  try { reply = await check(JSON.parse(line)); }
  catch (e) { reply = { errors: [`${e.name}: ${e.message}`] }; }
  console.log(JSON.stringify(reply));
}
process.exit(0);
"""


@dataclass(frozen=True)
class Verdict:
    """`errors`: Dawn's messages (the module is invalid where they are not empty, each with
    its WGSL line:column); `unsupported`: what this adapter cannot run though the WGSL is
    valid (a feature it lacks, which leaves the module unchecked, or a kernel beyond its
    limits, named with the limit)."""

    errors: tuple[str, ...]
    unsupported: tuple[str, ...] = ()


def _forward(lines, replies: queue.Queue) -> None:
    for line in lines:
        replies.put(line)
    replies.put("")  # end of output: the process is gone


class DawnShaderChecker:
    """A dawn.node process that checks WGSL modules; `check` is thread-safe. A process that
    crashes or answers nothing within `timeout_s`, plus `kernel_s` for each kernel of the
    module, is reported (ToolchainError, with its output) and replaced at the next check.
    Raises ToolchainError when Node or dawn.node is missing."""

    def __init__(self, timeout_s: float = 60, kernel_s: float = 5):
        # Dawn compiles every kernel's pipeline (on SwiftShader, to machine code through
        # LLVM): a pyramid's 60 kernels took over 60 s on a busy 2-core machine.
        self.timeout_s = timeout_s
        self.kernel_s = kernel_s
        self._lock = threading.Lock()
        self._dir = tempfile.TemporaryDirectory(prefix="webhal-dawn-")
        self._script = os.path.join(self._dir.name, "check_wgsl.mjs")
        with open(self._script, "w") as f:
            f.write(_SCRIPT)
        try:
            self._env = node_env(dawn=True)
        except ToolchainError:
            self._dir.cleanup()
            raise
        self._proc: subprocess.Popen | None = None

    def _start(self) -> None:
        runtime = (package_data.folder("runtime_js") / "webgpu.js")
        self._proc = subprocess.Popen([find_node().path, self._script,
                                       pathlib.Path(str(runtime)).resolve().as_uri()],
                                      stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True, env=self._env, cwd=self._dir.name)
        # Replies are read on a thread, so that a hung process costs a timeout, not the run.
        self._replies: queue.Queue[str] = queue.Queue()
        threading.Thread(target=_forward, args=(self._proc.stdout, self._replies),
                         daemon=True).start()

    def check(self, code: str, manifest: dict) -> Verdict:
        """Dawn's verdict on a WGSL module and its binding manifest."""
        kernels = [{"name": k["name"], "workgroup_size": k["workgroup_size"],
                    "constants": dict(zip(k["overrides"], k["workgroup_size"]))}
                   for k in manifest.get("kernels", [])]
        request = json.dumps({"code": code, "kernels": kernels,
                              "features": manifest.get("features", [])})
        wait_s = self.timeout_s + self.kernel_s * len(kernels)
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._start()
            try:
                self._proc.stdin.write(request + "\n")
                self._proc.stdin.flush()
                reply = self._replies.get(timeout=wait_s)
            except (BrokenPipeError, queue.Empty):
                reply = ""
            if not reply:
                raise self._failed(wait_s, len(kernels))
        answer = json.loads(reply)
        if "fatal" in answer:
            raise ToolchainError(answer["fatal"], hint=DAWN_NODE_HINT)
        return Verdict(tuple(answer["errors"]), tuple(answer.get("unsupported", ())))

    def _failed(self, wait_s: float, kernels: int) -> ToolchainError:
        proc, self._proc = self._proc, None
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if proc.returncode == -9:
            return ToolchainError(
                f"the dawn.node shader checker answered nothing in {wait_s:g} s "
                f"(a module of {kernels} kernels)", output=proc.stderr.read(),
                hint="the machine may be too busy to compile the pipelines in time: run fewer "
                     "jobs at once, or pass a larger timeout_s/kernel_s to DawnShaderChecker")
        return ToolchainError(f"the dawn.node shader checker exited ({proc.returncode})",
                              output=proc.stderr.read(), hint=DAWN_NODE_HINT)

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
        self._dir.cleanup()

    def __enter__(self) -> DawnShaderChecker:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
