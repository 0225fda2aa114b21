"""`webhal doctor`: find every tool and runtime webhal uses, really exercise each one (WebGPU
adapters are requested, not assumed), and say what is missing and how to install it."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace

from webhal.errors import ToolchainError
from webhal.runners.browser import webgpu_adapter_info
from webhal.runners.firefox import firefox_adapter_info
from webhal.runners.node import dawn_adapter_info
from webhal.toolchain import (
    AdapterInfo,
    Tool,
    find_chromium,
    find_dawn_node,
    find_emscripten,
    find_lavapipe_icd,
    find_llvmlite,
    find_node,
    find_playwright,
    find_swiftshader_icd,
    find_wasm_ld,
    find_wasmtime,
    find_wgpu_native,
    format_version,
    wgpu_adapter_info,
)
from webhal.toolchain.cache import cached
from webhal.toolchain.hosts import find_firefox, find_puppeteer
from webhal.toolchain.install import fix
from webhal.toolchain.process import run_tool
from webhal.toolchain.wasm import WASM_TRIPLE

# What each group of components makes possible, in the order doctor lists them.
CAPABILITIES = {
    "wasm objects": "compile pipelines to wasm32 objects (llvmlite's WebAssembly target)",
    "linking": "link wasm objects into JS + wasm bundles (emcc, wasm-ld)",
    "wasm JIT": "run wasm pipelines from Python (wasmtime)",
    "native WebGPU": "run WGSL kernels natively (wgpu-py on wgpu-native)",
    "Vulkan": "run SPIR-V kernels natively (PyPI vulkan on the system's Vulkan loader)",
    "Node + Dawn": "run bundles with WebGPU under Node (dawn.node)",
    "browser tests": "run bundles and demos in headless Chromium with WebGPU (Playwright)",
    "Firefox tests": "run bundles and demos in headless Firefox with WebGPU (puppeteer-core)",
}
# What `webhal build` needs. The others are runtimes to run and test packages on: doctor warns
# when one is missing and fails only for these (or for any with --all).
CORE = ("wasm objects", "linking")


@dataclass(frozen=True)
class CheckResult:
    """The outcome of checking one component."""

    component: str
    enables: str
    ok: bool
    required: bool = True
    version: str = ""
    path: str = ""
    detail: str = ""
    error: str = ""
    details: str = ""
    hint: str = ""
    adapter: AdapterInfo | None = None
    devices: tuple = ()  # Vulkan devices (webhal.runtime.vulkan.DeviceInfo fields)


@dataclass(frozen=True)
class Check:
    component: str
    enables: str
    run: Callable[[], CheckResult]
    required: bool = True


def _from_tool(tool: Tool, detail: str = "") -> CheckResult:
    return CheckResult(component="", enables="", ok=True, version=format_version(tool.version),
                       path=tool.path, detail=detail)


def _from_adapter(adapter: AdapterInfo) -> CheckResult:
    return CheckResult(component="", enables="", ok=True, detail=adapter.summary(),
                       adapter=adapter)


def _check_llvmlite() -> CheckResult:
    llvmlite = find_llvmlite()
    result = _from_tool(llvmlite)
    version = f"{result.version} (LLVM {format_version(llvmlite.llvm_version)})"
    if not llvmlite.wasm_target:
        return replace(result, ok=False, version=version,
                       error=f"llvmlite's LLVM has no {WASM_TRIPLE} target: "
                             f"{llvmlite.wasm_target_error}",
                       hint=fix("pip install --force-reinstall llvmlite (PyPI's wheels have "
                                "the WebAssembly target)", "pip install llvmlite, from PyPI, "
                                "whose wheels have the WebAssembly target"))
    return replace(result, version=version, detail=f"{WASM_TRIPLE} target registered")


def _check_emcc() -> CheckResult:
    em = find_emscripten()
    caps = ", ".join(sorted(em.capabilities.names))
    return CheckResult(component="", enables="", ok=True, version=em.version_string,
                       path=" ".join(em.emcc), detail=f"found by {em.found_by}; has {caps}")


def _check_wgpu_adapter() -> CheckResult:
    return _from_adapter(wgpu_adapter_info())


def _check_dawn_adapter() -> CheckResult:
    return _from_adapter(dawn_adapter_info())


def _check_chromium_adapter() -> CheckResult:
    return _from_adapter(webgpu_adapter_info())


def _check_firefox_adapter() -> CheckResult:
    return _from_adapter(firefox_adapter_info())


# Asked in a child process, as wgpu's adapter is: a driver crash must not take doctor with it.
_VULKAN_PROBE = "import json; from webhal.runtime.vulkan import probe; print(json.dumps(probe()))"
_vulkan_lock = threading.Lock()  # both Vulkan checks share one probe


@cached
def _probe_vulkan() -> dict:
    from webhal.runtime.vulkan import DRIVER_HINT

    result = run_tool([sys.executable, "-c", _VULKAN_PROBE], timeout_s=120,
                      what="the Vulkan probe", hint=DRIVER_HINT)
    return json.loads(result.stdout.strip().splitlines()[-1])


def _vulkan() -> dict:
    with _vulkan_lock:
        return _probe_vulkan()


def _check_vulkan_devices() -> CheckResult:
    from webhal.runtime.vulkan import DRIVER_HINT, DeviceInfo

    found = _vulkan()
    if "error" in found:
        raise ToolchainError(found["error"], hint=DRIVER_HINT)
    if not found["devices"]:
        raise ToolchainError("the Vulkan loader finds no device", hint=DRIVER_HINT)
    lines = []
    for fields in found["devices"]:
        device = DeviceInfo(**{k: tuple(v) if isinstance(v, list) else v
                               for k, v in fields.items()})
        lines.append(f"{device.summary()}: {' '.join(device.features) or 'no optional features'}")
    return CheckResult(component="", enables="", ok=True, version=found["binding"],
                       detail="\n".join(lines), devices=tuple(found["devices"]))


def _check_validation_layer() -> CheckResult:
    from webhal.runtime.vulkan import LAYERS_HINT, VALIDATION_LAYER

    found = _vulkan()
    if VALIDATION_LAYER not in found["layers"]:
        raise ToolchainError(f"{VALIDATION_LAYER} is not installed", hint=LAYERS_HINT)
    return CheckResult(component="", enables="", ok=True,
                       detail=f"{VALIDATION_LAYER} (VK_INSTANCE_LAYERS or HL_VK_LAYERS)")


CHECKS: tuple[Check, ...] = (
    Check("llvmlite", "wasm objects", _check_llvmlite),
    Check("emcc", "linking", _check_emcc),
    Check("wasm-ld", "linking", lambda: _from_tool(find_wasm_ld())),
    Check("wasmtime", "wasm JIT", lambda: _from_tool(find_wasmtime())),
    Check("wgpu-native", "native WebGPU", lambda: _from_tool(find_wgpu_native())),
    # An adapter is what matters; lavapipe is only how a GPU-less machine gets one.
    Check("lavapipe", "native WebGPU", lambda: _from_tool(find_lavapipe_icd()), required=False),
    Check("wgpu adapter", "native WebGPU", _check_wgpu_adapter),
    Check("vulkan devices", "Vulkan", _check_vulkan_devices),
    # Only for checking kernels (tests turn it on); running needs none.
    Check("validation layer", "Vulkan", _check_validation_layer, required=False),
    Check("node", "Node + Dawn", lambda: _from_tool(find_node())),
    Check("dawn.node", "Node + Dawn", lambda: _from_tool(find_dawn_node())),
    Check("swiftshader", "Node + Dawn", lambda: _from_tool(find_swiftshader_icd())),
    Check("dawn adapter", "Node + Dawn", _check_dawn_adapter),
    Check("chromium", "browser tests", lambda: _from_tool(find_chromium())),
    Check("playwright", "browser tests", lambda: _from_tool(find_playwright())),
    Check("chromium adapter", "browser tests", _check_chromium_adapter),
    Check("firefox", "Firefox tests", lambda: _from_tool(find_firefox())),
    Check("puppeteer-core", "Firefox tests", lambda: _from_tool(find_puppeteer())),
    Check("firefox adapter", "Firefox tests", _check_firefox_adapter),
)


def _run_one(check: Check) -> CheckResult:
    try:
        result = check.run()
    except ToolchainError as exc:
        # The first line is the message proper; command and output follow in `details`.
        result = CheckResult(component="", enables="", ok=False,
                             error=str(exc).splitlines()[0], details=str(exc), hint=exc.hint)
    except Exception as exc:  # doctor reports every failure; it must not crash on one
        result = CheckResult(component="", enables="", ok=False,
                             error=f"unexpected {type(exc).__name__}: {exc}")
    return replace(result, component=check.component, enables=check.enables,
                   required=check.required)


def run_checks(checks: tuple[Check, ...] = CHECKS, *, workers: int = 4) -> list[CheckResult]:
    """Run every check (in `workers` threads; the slow ones start processes) and return the
    results in the order of `checks`."""
    if workers <= 1:
        return [_run_one(check) for check in checks]
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="webhal-doctor") as pool:
        return list(pool.map(_run_one, checks))


def enabled_capabilities(results: list[CheckResult]) -> dict[str, bool]:
    """For each capability, whether every required component behind it passed."""
    return {name: all(r.ok for r in results if r.enables == name and r.required)
            for name in CAPABILITIES}


def all_required_ok(results: list[CheckResult]) -> bool:
    return all(r.ok for r in results if r.required)


def missing_capabilities(results: list[CheckResult], needed=tuple(CAPABILITIES)) -> list[str]:
    """The capabilities of `needed` that a required component is missing for."""
    enabled = enabled_capabilities(results)
    return [name for name in needed if not enabled[name]]


def to_json(results: list[CheckResult]) -> dict:
    """The machine-readable report `webhal doctor --json` prints: `ok` when packages can be
    built (CORE), `complete` when every capability works."""
    return {
        "ok": not missing_capabilities(results, CORE),
        "complete": all_required_ok(results),
        "capabilities": enabled_capabilities(results),
        "components": [asdict(r) for r in results],
        "adapters": {r.adapter.runtime: asdict(r.adapter) for r in results if r.adapter},
        "vulkan_devices": [d for r in results for d in r.devices],
    }


def render_table(results: list[CheckResult], needed=CORE):
    """A rich Table with one row per component; a missing one is red when a capability of
    `needed` depends on it, else yellow."""
    from rich.table import Table

    table = Table(title="webhal doctor", show_lines=False)
    for column in ("component", "status", "version", "enables", "path / detail"):
        table.add_column(column, overflow="fold")
    for r in results:
        if r.ok:
            status = "[green]ok[/green]"
        else:
            status = "[red]missing[/red]" if r.required and r.enables in needed else \
                "[yellow]missing[/yellow]"
        where = "\n".join(x for x in (_short_path(r.path), r.detail, r.error) if x)
        table.add_row(r.component, status, r.version, r.enables, where)
    return table


def _short_path(path: str) -> str:
    """`path` relative to the current directory when under it, else with ~ for home."""
    if not path.startswith(os.sep):
        return path
    here = os.getcwd() + os.sep
    if path.startswith(here):
        return path[len(here):]
    home = os.path.expanduser("~")
    if home != os.sep and path.startswith(home + os.sep):
        return "~" + path[len(home):]
    return path


def make_console():
    """A rich Console; 120 columns when stdout is not a terminal (rich would choose 80)."""
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console = Console(width=120)
    return console


def print_report(results: list[CheckResult], console, needed=CORE) -> None:
    """The table, then what each capability needs (those beyond `needed` are optional), then
    how to fix what is missing."""
    console.print(render_table(results, needed))
    for name, ok in enabled_capabilities(results).items():
        mark = "[green]yes[/green]" if ok else "[red]no[/red] " if name in needed else \
            "[yellow]no[/yellow] "
        optional = "" if ok or name in needed else " (optional)"
        console.print(f"  {mark} {name}: {CAPABILITIES[name]}{optional}", highlight=False)
    print_hints(results, console, needed)


def print_hints(results: list[CheckResult], console, needed=CORE) -> None:
    """How to fix each missing component; those no capability of `needed` depends on are
    marked optional."""
    failed = [r for r in results if not r.ok]
    if not failed:
        return
    console.print("\nto fix:", style="bold")
    seen = set()
    for r in failed:
        hint = r.hint or "see the error above"
        optional = "" if r.required and r.enables in needed else f" (optional, for {r.enables})"
        line = f"  {r.component}{optional}: {hint}"
        if (r.error, hint) in seen:
            continue  # dependents of a missing tool repeat its error and hint
        seen.add((r.error, hint))
        # Not wrapped: a command in a hint must stay whole to be copied.
        console.print(line, highlight=False, markup=False, soft_wrap=True)
        for extra in _context_lines(r.details):
            console.print("      " + extra, style="dim", highlight=False, markup=False,
                          soft_wrap=True)


def _context_lines(details: str) -> list[str]:
    """The command and output lines of a ToolchainError's text (not its message or hint)."""
    lines = details.splitlines()[1:]
    cut = next((i for i, line in enumerate(lines) if line.startswith("to fix: ")), len(lines))
    return lines[:cut]


def main(*, as_json: bool = False, every: bool = False, console=None) -> int:
    """Run `webhal doctor`: 0 when packages can be built (CORE; with `every`, when every
    capability works), 1 otherwise. A missing runtime is a warning with its hint."""
    from rich.console import Console

    console = console or make_console()
    results = run_checks()
    needed = tuple(CAPABILITIES) if every else CORE
    if as_json:
        print(json.dumps(to_json(results), indent=2))
        print_hints(results, Console(stderr=True), needed)
    else:
        print_report(results, console, needed)
    missing = missing_capabilities(results, needed)
    if missing:
        print(f"webhal doctor: missing {', '.join(missing)} (see `to fix` above)",
              file=sys.stderr)
    return 1 if missing else 0
