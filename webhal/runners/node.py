"""Run Node.js scripts with the environment webhal's outputs need.

`dawn=True` prepares WebGPU through dawn.node: Vulkan is pointed at SwiftShader (dawn.node
rejects Debian's lavapipe) and HL_WEBGPU_NODE_BINDINGS names the dawn.node to load.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import tempfile
from collections.abc import Mapping, Sequence

from webhal.errors import ToolchainError
from webhal.runners import package_run
from webhal.toolchain.adapters import AdapterInfo
from webhal.toolchain.cache import cached
from webhal.toolchain.hosts import find_node
from webhal.toolchain.process import json_reply, run_tool, tool_env
from webhal.toolchain.webgpu import DAWN_NODE_HINT, find_dawn_node, find_swiftshader_icd


def node_env(*, dawn: bool = False, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment for a Node process: NODE_PATH with Debian's modules; with `dawn`, the Vulkan
    driver set to SwiftShader and HL_WEBGPU_NODE_BINDINGS set. `extra` is applied last.
    Raises ToolchainError when `dawn` and dawn.node or SwiftShader is missing."""
    env = tool_env()
    if dawn:
        icd = find_swiftshader_icd().path
        # VK_DRIVER_FILES is the newer loader's name and wins over VK_ICD_FILENAMES: set both.
        env.update(VK_ICD_FILENAMES=icd, VK_DRIVER_FILES=icd,
                   HL_WEBGPU_NODE_BINDINGS=find_dawn_node().path)
    if extra:
        env.update(extra)
    return env


def run_node(script: str | os.PathLike, args: Sequence[str] = (), *, dawn: bool = False,
             no_experimental_fetch: bool = False, node_args: Sequence[str] = (),
             env: Mapping[str, str] | None = None, cwd: str | os.PathLike | None = None,
             timeout_s: float = 120, hint: str = "",
             what: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run `node [node_args] script args...` and return its captured output.

    `no_experimental_fetch` is for JS emitted by Emscripten 3.1.6, which under Node 20 loads its
    .wasm with `fetch` on a file path and fails. Raises ToolchainError (command line, output tail)
    when Node is missing or the script exits non-zero or runs past `timeout_s`; `hint` is
    the advice such an error carries and `what` names the script in it."""
    node = find_node()
    flags = ["--no-experimental-fetch"] if no_experimental_fetch else []
    command = [node.path, *flags, *node_args, os.fspath(script), *args]
    return run_tool(command, env=node_env(dawn=dawn, extra=env), cwd=cwd, timeout_s=timeout_s,
                    what=what or f"node {os.path.basename(os.fspath(script))}", hint=hint)


def run_node_source(source: str, args: Sequence[str] = (), *, module: bool = True,
                    **kwargs) -> subprocess.CompletedProcess[str]:
    """Run JavaScript text as a script file (an ES module when `module`); else as run_node."""
    suffix = ".mjs" if module else ".cjs"
    with tempfile.TemporaryDirectory(prefix="webhal-node-") as directory:
        path = os.path.join(directory, "script" + suffix)
        with open(path, "w") as f:
            f.write(source)
        return run_node(path, args, **kwargs)


# Loads dawn.node by path, as the `webgpu` package's index.js does, so that
# HL_WEBGPU_NODE_BINDINGS decides which build is used. Exits explicitly: Node stays alive while
# the GPU object is referenced.
_DAWN_PROBE = """
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const { create, globals } = require(process.env.HL_WEBGPU_NODE_BINDINGS);
Object.assign(globalThis, globals);
const gpu = create([]);
const adapter = await gpu.requestAdapter();
const info = adapter && adapter.info;
console.log(JSON.stringify(info ? {vendor: info.vendor, architecture: info.architecture,
                                   device: info.device, description: info.description} : null));
process.exit(0);
"""


@cached
def dawn_adapter_info(timeout_s: float = 60) -> AdapterInfo:
    """The adapter dawn.node offers under Node with SwiftShader (vendor "google", architecture
    "swiftshader"). Raises ToolchainError when Node, dawn.node or an adapter is missing."""
    result = run_node_source(_DAWN_PROBE, dawn=True, timeout_s=timeout_s, hint=DAWN_NODE_HINT,
                             what="dawn.node adapter request")
    info = json_reply(result, "dawn.node adapter request")
    if info is None:
        raise ToolchainError("dawn.node offered no WebGPU adapter", output=result.stderr,
                             hint=f"check SwiftShader's ICD ({find_swiftshader_icd().path}); "
                                  f"{DAWN_NODE_HINT}")
    return AdapterInfo.from_dict("dawn.node", info)


# Runs runtime_js/harness.js on a package: argv is the harness's and the package's file URLs,
# the spec's path and where the reply goes (stdout is the pipeline's own). webgpu variants find
# dawn.node through HL_WEBGPU_NODE_BINDINGS, as runtime_js/webgpu.js does.
_RUN_PACKAGE = """
import { readFileSync, writeFileSync } from 'node:fs';
const [harness, index, specPath, replyPath] = process.argv.slice(2);
const { runPackage } = await import(harness);
const { create } = await import(index);
const reply = await runPackage(create, JSON.parse(readFileSync(specPath, 'utf8')));
writeFileSync(replyPath, JSON.stringify(reply));
process.exit(0);  // dawn.node keeps Node alive otherwise
"""


def run_package(directory: str | os.PathLike, inputs: Mapping[str, object],
                output_shapes: Mapping[str, Sequence[int]], *, variant: str | None = None,
                samples: int = 0, min_batch_ms: float = 20, timeout_s: float = 300):
    """Run the npm package in `directory` in Node (webhal.runners.package_run.spec gives the
    meaning of the arguments); webgpu variants run on dawn.node. Returns a PackageRun.
    Raises ToolchainError with Node's output when the run fails."""
    from webhal.glue import package_data

    directory = pathlib.Path(directory).resolve()
    meta = json.loads((directory / "package.json").read_text(encoding="utf-8"))["webhal"]
    targets = meta["variants"] if variant is None else {variant: meta["variants"].get(variant, "")}
    dawn = any("webgpu" in t.split("-") for t in targets.values())
    harness = package_data.folder("runtime_js") / "harness.js"
    with tempfile.TemporaryDirectory(prefix="webhal-node-run-") as tmp:
        spec_path, reply_path = os.path.join(tmp, "spec.json"), os.path.join(tmp, "reply.json")
        with open(spec_path, "w") as f:
            json.dump(package_run.spec(variant, inputs, output_shapes, samples, min_batch_ms), f)
        done = run_node_source(_RUN_PACKAGE, [pathlib.Path(str(harness)).as_uri(),
                                              (directory / "index.js").as_uri(), spec_path,
                                              reply_path],
                               dawn=dawn, timeout_s=timeout_s,
                               what=f"{directory.name} in Node")
        with open(reply_path) as f:
            reply = json.load(f)
    console = [line for line in (done.stdout + done.stderr).splitlines() if line]
    return package_run.result(reply, console)
