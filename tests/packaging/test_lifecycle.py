"""A package's lifecycle: p.dispose() (and Symbol.dispose / Symbol.asyncDispose) releases the
threads variant's workers, the wasm memory and the webgpu variant's device; a disposed
pipeline's run is a PipelineDisposedError; importing and creating install no process-wide
listener or global. 100 create/run/dispose cycles leave the thread count and the memory where
they were after the first few, in Node (the process's threads and RSS) and in Chromium (its
workers and the page's memory). Before dispose existed, 100 creates of the threads variant took
Node from 11 to 411 threads and from 43 to 2715 MB, with 100 uncaughtException listeners."""

from __future__ import annotations

import json
import pathlib
import re
import shutil
import uuid

import pytest

from tests.packaging.conftest import AMOUNT, HEIGHT, WIDTH
from webhal.runners.node import run_node_source
from webhal.runners.server import StaticServer

CYCLES = 100
# Where a leak of one pool per create() (4 workers, 16 MB of wasm memory and more) shows
# after a few cycles, and what a process's own noise stays under.
MORE_THREADS = 4
MORE_MEGABYTES = 96
# Chromium's renderer also runs thread pools of its own, whose size drifts by a few and, once
# in a run, grows by a step (17-26 threads seen, after 5-50 or 50-100 cycles, as the machine's
# load has it): of two intervals of 50 cycles one must stay flat. A leak grows in both.
MORE_RENDERER_THREADS = 8

_NODE = """import { readFileSync } from 'node:fs';
const listeners = () => ['uncaughtException', 'unhandledRejection']
  .map((e) => process.listenerCount(e)).join(',');
const before = { listeners: listeners(), worker: typeof globalThis.Worker };
const { create } = await import(%(index)s);
const threads = () => Number(readFileSync('/proc/self/status', 'utf8')
  .match(/Threads:\\s+(\\d+)/)[1]);
const megabytes = () => { globalThis.gc(); return process.memoryUsage().rss / 2 ** 20; };
const input = { input: { data: new Uint8Array(%(w)d * %(h)d).fill(7), shape: [%(w)d, %(h)d] },
                amount: %(amount)s };
let first, p;
for (let i = 0; i < %(cycles)d; i++) {
  p = await create({ variant: 'threads', threads: 2 });
  if (i === 0 && p.threads !== 2) throw new Error(`p.threads is ${p.threads}`);
  await p.run(input, { shape: [%(w)d, %(h)d] });
  await (i %% 2 ? p.dispose() : p[Symbol.asyncDispose]());
  if (i === 4) first = { threads: threads(), megabytes: megabytes() };
}
let disposed;
try {
  await p.run(input, { shape: [%(w)d, %(h)d] });
} catch (e) {
  disposed = `${e.name}: ${e.message}`;
}
const auto = await create({ variant: 'threads' });
const cores = (await import('node:os')).availableParallelism();
console.log(JSON.stringify({ before, first, last: { threads: threads(), megabytes: megabytes() },
  after: { listeners: listeners(), worker: typeof globalThis.Worker }, disposed,
  defaultThreads: auto.threads, cores }));
auto[Symbol.dispose]();
"""


@pytest.mark.slow
def test_node_cycles_leave_threads_and_memory_flat(every_variant_package, node):
    index = json.dumps((every_variant_package / "index.js").as_uri())
    out = run_node_source(_NODE % {"index": index, "w": WIDTH, "h": HEIGHT, "amount": AMOUNT,
                                   "cycles": CYCLES},
                          node_args=["--expose-gc"], timeout_s=300, what="100 cycles").stdout
    got = json.loads(out.strip().splitlines()[-1])
    print("Node after 5 and 100 cycles:", got["first"], got["last"])
    assert got["after"] == got["before"] == {"listeners": "0,0", "worker": "undefined"}, got
    assert got["last"]["threads"] <= got["first"]["threads"] + MORE_THREADS, got
    assert got["last"]["megabytes"] <= got["first"]["megabytes"] + MORE_MEGABYTES, got
    assert got["disposed"].startswith("PipelineDisposedError: brighten_gpu.run: the pipeline "
                                      "was disposed"), got
    assert got["defaultThreads"] == got["cores"]  # os.availableParallelism(), not a fixed 4


_PAGE = """<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="module">
import { create } from './pkg/index.js';
const input = { input: { data: new Uint8Array(%(w)d * %(h)d).fill(7), shape: [%(w)d, %(h)d] },
                amount: %(amount)s };
let done = 0;
// `count` more cycles (every tenth on the webgpu variant, on Chromium's adapter), then a
// garbage collection and a moment for the ended workers' threads to go.
window.cycles = async (count) => {
  for (let end = done + count; done < end; done++) {
    const gpu = done %% 10 === 9;
    const p = await create(gpu ? { variant: 'webgpu' } : { variant: 'threads', threads: 2 });
    await p.run(input, { shape: [%(w)d, %(h)d] });
    const device = p.device;
    await p.dispose();
    if (device) await device.lost;  // the device create() asked for is destroyed
  }
  globalThis.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return { cores: navigator.hardwareConcurrency, isolated: crossOriginIsolated };
};
window.defaultThreads = async () => (await create({ variant: 'threads' })).threads;
</script>
"""


def _renderers(marker: str) -> dict:
    """Threads and resident megabytes of the renderer processes of the Chromium launched with
    `marker` among its arguments (a page's workers are threads of its renderer)."""
    parents, lines = {}, {}
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            lines[int(entry.name)] = (entry / "cmdline").read_bytes()
            stat = (entry / "stat").read_text()
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
    # (Chromium's child processes rewrite their command line as one string.)
    browsers = {pid for pid, line in lines.items() if marker.encode() + b"\0" in line}

    def descends(pid):
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid in browsers:
                return True
        return False
    threads = megabytes = 0
    for pid, line in lines.items():
        if b"--type=renderer" in line and descends(pid):
            status = (pathlib.Path("/proc") / str(pid) / "status").read_text()
            threads += int(re.search(r"Threads:\s+(\d+)", status)[1])
            megabytes += int(re.search(r"VmRSS:\s+(\d+)", status)[1]) / 1024
    return {"threads": threads, "megabytes": round(megabytes)}


@pytest.mark.slow
@pytest.mark.browser
def test_chromium_cycles_leave_workers_and_memory_flat(every_variant_package, chromium,
                                                       tmp_path):
    from webhal.runners.browser import browser_session

    shutil.copytree(every_variant_package, tmp_path / "pkg")
    (tmp_path / "index.html").write_text(_PAGE % {"w": WIDTH, "h": HEIGHT, "amount": AMOUNT})
    marker = f"--webhal-lifecycle={uuid.uuid4().hex}"
    with StaticServer(tmp_path) as server, browser_session(
            tmp_path, extra_args=["--js-flags=--expose-gc", marker]) as session:
        page = session.browser.new_page()
        page.set_default_timeout(280_000)
        page.goto(server.url + "/index.html")
        page.wait_for_function("window.cycles !== undefined")
        # Chromium's own thread pools and caches grow over the first tens of pages' worth of
        # work (see MORE_RENDERER_THREADS): flat means one of the two intervals of 50 cycles
        # after the first 50 adds nothing beyond noise.
        about = page.evaluate("cycles(5)")
        got = {5: _renderers(marker)}
        half = CYCLES // 2
        page.evaluate(f"cycles({half - 5})")
        got[half] = _renderers(marker)
        for n in (CYCLES, CYCLES + half):
            page.evaluate(f"cycles({half})")
            got[n] = _renderers(marker)
        default_threads = page.evaluate("defaultThreads()")
    print("Chromium renderers after N cycles:", got)
    assert about["isolated"] and got[half]["threads"] > 0, got
    for what, more in (("threads", MORE_RENDERER_THREADS), ("megabytes", MORE_MEGABYTES)):
        growth = [got[b][what] - got[a][what]
                  for a, b in ((half, CYCLES), (CYCLES, CYCLES + half))]
        assert min(growth) <= more, (what, got)
    assert default_threads == about["cores"]  # navigator.hardwareConcurrency, not a fixed 4


_THREADS = """const { create } = await import(%(index)s);
const said = async (options) => {
  try {
    const p = await create(options);
    await p.dispose();
    return `threads ${p.threads}`;
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
};
console.log(JSON.stringify(await Promise.all([{ variant: 'threads', threads: 3 },
  { variant: 'threads', threads: 1 }, { variant: 'threads', threads: 0 },
  { variant: 'threads', threads: 2.5 },
  { variant: 'simd', threads: 4 }, { variant: 'simd', threads: 1 }].map(said))));
"""


@pytest.mark.slow  # (the shared package takes a minute to build)
def test_the_thread_count_is_an_option(every_variant_package, node):
    index = json.dumps((every_variant_package / "index.js").as_uri())
    got = json.loads(run_node_source(_THREADS % {"index": index}).stdout)
    assert got[0] == "threads 3"
    assert got[1] == "threads 1"  # a pool of no workers: Emscripten 3.1.6's module never loaded
    for bad in got[2:4]:
        assert bad.startswith("RangeError: brighten_gpu: create: threads must be a whole number "
                              "from 1 to 1024"), bad
    assert got[4] == ("RangeError: brighten_gpu: create: threads: 4 needs the threads variant; "
                      "the simd variant runs on one thread")
    assert got[5] == "threads 1"
