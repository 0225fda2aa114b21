// The profiler's report in JavaScript (packages built for a target with the feature
// `profile`): p.profile() reads the text the wasm runtime writes (webhal_profiler_report_text,
// Halide's report format: webhal/codegen/llvm/profiler.py) and parses it here into data;
// drawProfile() draws it as bars (the demo page). On the webgpu variant, GpuProfiler times the
// kernels and copies of runtime_js/webgpu.js and withGpu() adds them to the report in the
// sections webhal/runtime/profiler.py prints for the Python GPU runtimes.

const HEAD = /^(\S.*)\n total time: ([\d.]+) ms {2}samples: (\d+) {2}runs: (\d+) {2}time per run: ([\d.]+) ms$/gm;
const ROW = /^ {4}(.+?): +([\d.]+)ms +\( ?([\d.]+)%\)/;
const SECTION = /^ {2}\[(.+?) :+ +[\d.]+ms +\( ?[\d.]+%\) ::::\]$/;

/**
 * The pipelines of a report: [{ name, runs, totalMs, perRunMs, threads, sections }], where
 * sections maps "funcs" (and, where the report has them, "gpu kernels", "buffer copies to
 * device", ...) to rows [{ name, ms, percent }], ms per run.
 */
export function parseProfile(text) {
  const heads = [...text.matchAll(HEAD)];
  return heads.map((m, i) => {
    const end = i + 1 < heads.length ? heads[i + 1].index : text.length;
    const body = text.slice(m.index + m[0].length, end);
    const sections = {};
    let section = 'funcs';
    let threads = 1;
    let kernelTiming;
    for (const line of body.split('\n')) {
      const s = SECTION.exec(line);
      const r = ROW.exec(line);
      const t = /^ average threads used: ([\d.]+)/.exec(line);
      const k = /^ gpu kernels timed by: (.+)$/.exec(line);
      if (s) section = s[1];
      else if (r) (sections[section] ??= []).push({ name: r[1], ms: Number(r[2]), percent: Number(r[3]) });
      else if (t) threads = Number(t[1]);
      else if (k) kernelTiming = k[1];
    }
    const p = { name: m[1], totalMs: Number(m[2]), runs: Number(m[4]), perRunMs: Number(m[5]),
      threads, sections };
    if (kernelTiming) p.kernelTiming = kernelTiming;
    return p;
  });
}

/** The report of module `m` (an Emscripten module of a profiled package), or null without. */
export function readProfile(m, heapOf, reset = false) {
  if (typeof m?._webhal_profiler_report_text !== 'function') return null;
  const size = 1 << 16;
  const at = m._malloc(size);
  try {
    const n = m._webhal_profiler_report_text(at, size);
    // A copy (slice) first: TextDecoder refuses views of shared memory (threads variant).
    const text = new TextDecoder().decode(heapOf(m).slice(at, at + n));
    if (reset) m._halide_profiler_reset();
    return { text, pipelines: parseProfile(text) };
  } finally {
    m._free(at);
  }
}

// -- the webgpu variant's kernels and copies ---------------------------------------------------

const now = () => performance.now();
const MAP_READ = 0x1;
const QUERY_RESOLVE = 0x200;
const COPY_SRC = 0x4;
const COPY_DST = 0x8;
const MAX_QUERIES = 4096;  // WebGPU's limit on a query set's count

/**
 * The time a profiled webgpu variant's runs spend on the device (runtime_js/webgpu.js makes one
 * only for a variant built with `profile`): each kernel's, from timestamp queries where the
 * device has 'timestamp-query' (one compute pass per dispatch with timestampWrites, resolved
 * into a buffer read back with the run's results), else from the wall clock of its submission
 * (one submission per dispatch, submission to onSubmittedWorkDone less the time before the
 * previous one completed; completions are seen only once the wasm's call returns, so the
 * first kernel's time includes the rest of the call: their sum is the run's GPU wall time,
 * their split approximate); and each buffer's upload (the writeBuffer call) and readback (the
 * copy into its staging buffer, mapAsync and the copy out, the kernels waited for first).
 * A run's times count once it finishes (endRun); a run that fails leaves nothing.
 */
export class GpuProfiler {
  constructor(device) {
    this.device = device;
    this.timestamps = Boolean(device.features?.has('timestamp-query'));
    this.timing = this.timestamps ? 'timestamp-query'
      : 'wall clock per submission (no timestamp-query)';
    this.querySet = null;
    this.resolveBuffer = null;
    this.capacity = 0;          // queries in querySet
    this.readBuffers = [];      // MAP_READ buffers, one per submission of a run, reused
    this.lastDone = -Infinity;  // when the last queue event waited for completed
    this.grow = false;          // a submission filled the query set: the next gets a larger one
    this.reset();
    this.startRun();
  }

  /** Forget every run's times (p.profile({ reset: true })). */
  reset() {
    this.runs = 0;
    this.kernels = new Map();   // name -> [ms, dispatches]
    this.copies = { 'to device': new Map(), 'to host': new Map() };
    this.afterMs = 0;           // waited for after the wasm returned: kernels, readbacks
  }

  /** A run starts (or a failed one is dropped): what it records from here is its own. */
  startRun() {
    this.run = { kernels: new Map(), copies: { 'to device': new Map(), 'to host': new Map() },
      events: [], batches: [] };
    this.batch = [];            // the kernels recorded and not yet submitted
  }

  /** Whether the query set is full: the runtime submits what it recorded first. */
  full() {
    return this.timestamps && 2 * (this.batch.length + 1) > this.capacity
      && this.batch.length > 0;
  }

  /** The descriptor of the compute pass that dispatches kernel `name`. */
  pass(name) {
    this.batch.push(name);
    if (!this.timestamps) return undefined;
    if (this.batch.length === 1 && this.grow) this._grow(2 * this.capacity);
    else if (2 * this.batch.length > this.capacity) this._grow(2 * this.batch.length);
    const i = 2 * (this.batch.length - 1);
    return { timestampWrites: { querySet: this.querySet, beginningOfPassWriteIndex: i,
      endOfPassWriteIndex: i + 1 } };
  }

  /** Before `encoder` is finished: its passes' timestamps resolved into a buffer to read. */
  resolve(encoder) {
    if (!this.timestamps || !this.batch.length) return;
    const bytes = 16 * this.batch.length;
    this.grow = bytes >= 8 * this.capacity && this.capacity < MAX_QUERIES;
    const n = this.run.batches.length;
    let read = this.readBuffers[n];
    if (!read || read.size < bytes) {
      read?.destroy();
      read = this.readBuffers[n] = this.device.createBuffer({ size: 8 * this.capacity,
        usage: MAP_READ | COPY_DST });
    }
    encoder.resolveQuerySet(this.querySet, 0, 2 * this.batch.length, this.resolveBuffer, 0);
    encoder.copyBufferToBuffer(this.resolveBuffer, 0, read, 0, bytes);
    this.run.batches.push({ names: this.batch, read });
  }

  /** After a submission begun at `start`: its kernels are timed by the wall clock without
   * timestamps; either way later events are timed from its completion. */
  submitted(start) {
    const names = this.timestamps ? [] : this.batch;
    this.batch = [];
    const done = this.device.queue.onSubmittedWorkDone().then(now);
    this.run.events.push({ names, start, done });
  }

  /** writeBuffer of buffer `name` took `ms`. Dawn copies the data before it returns (the
   * transfer runs with the next submission); the queue's completion is not waited for: during
   * the wasm's call no event is delivered, so it would count the rest of the call. */
  uploaded(name, ms) {
    add(this.run.copies['to device'], name, ms);
  }

  /** A readback of buffer `name` took `ms` (the queue idle before it). */
  readBack(name, ms) {
    add(this.run.copies['to host'], name, ms);
  }

  /** Wait for what the run queued and add its times. */
  async settle() {
    const { events, batches } = this.run;
    this.run.events = [];
    this.run.batches = [];
    for (const { names, start, done } of events) {
      const end = await done;
      const ms = Math.max(0, end - Math.max(start, this.lastDone));
      this.lastDone = end;
      for (const name of names) add(this.run.kernels, name, ms / names.length);
    }
    for (const { names, read } of batches) {
      await read.mapAsync(MAP_READ, 0, 16 * names.length);
      const t = new BigUint64Array(read.getMappedRange(0, 16 * names.length));
      // Timestamps are nanoseconds; Dawn quantizes them (about 0.065 ms in dawn.node, 0.1 ms
      // in Chrome), so a short kernel may read 0 in one dispatch and the quantum in another.
      names.forEach((name, i) => add(this.run.kernels, name,
        t[2 * i + 1] > t[2 * i] ? Number(t[2 * i + 1] - t[2 * i]) / 1e6 : 0));
      read.unmap();
    }
  }

  /** The run ended, `afterMs` after its wasm returned: its times count. */
  endRun(afterMs) {
    for (const [name, [ms, n]] of this.run.kernels) add(this.kernels, name, ms, n);
    for (const [kind, per] of Object.entries(this.run.copies)) {
      for (const [name, [ms, n]] of per) add(this.copies[kind], name, ms, n);
    }
    this.afterMs += afterMs;
    this.runs += 1;
    this.startRun();
  }

  destroy() {
    this.querySet?.destroy();
    this.resolveBuffer?.destroy();
    for (const b of this.readBuffers) b?.destroy();
    this.readBuffers = [];
  }

  // A query set of at least `queries` (called with no pass recorded on the old one; work
  // submitted with the old one keeps it until it completes).
  _grow(queries) {
    this.grow = false;
    let capacity = Math.max(32, this.capacity);
    while (capacity < queries) capacity *= 2;
    capacity = Math.min(capacity, MAX_QUERIES);
    this.querySet?.destroy();
    this.resolveBuffer?.destroy();
    this.querySet = this.device.createQuerySet({ type: 'timestamp', count: capacity });
    this.resolveBuffer = this.device.createBuffer({ size: 8 * capacity,
      usage: QUERY_RESOLVE | COPY_SRC });
    this.capacity = capacity;
  }
}

function add(map, name, ms, n = 1) {
  const entry = map.get(name);
  if (entry) {
    entry[0] += ms;
    entry[1] += n;
  } else {
    map.set(name, [ms, n]);
  }
}

// Halide's report format (webhal/runtime/profiler.py's format_report, which follows Halide 21's
// src/runtime/profiler_common.cpp): a float as %f less its last 3 digits.
const f3 = (x) => x.toFixed(6).slice(0, -3);

function timeAndPercent(line, ms, total, cursor, light) {
  line += ' '.repeat([10000, 1000, 100, 10].filter((lim) => ms < lim).length) + `${f3(ms)}ms`;
  cursor += 12;
  line = line.padEnd(cursor);
  const perthousand = total > 0 ? Math.floor((1000 * ms) / total) : 0;
  line += `(${perthousand < 100 ? ' ' : ''}${Math.floor(perthousand / 10)}.${perthousand % 10}%)`;
  return light ? line : line.padEnd(cursor + 10);
}

/**
 * One pipeline's report in webhal's format, from per-run figures: { name, runs, perRunMs,
 * threads (null: serial), kernelTiming, sections: { funcs, 'gpu kernels', 'buffer copies to
 * device', 'buffer copies to host': [{ name, ms }] } }; percentages of perRunMs.
 */
export function formatProfile(p) {
  const runs = Math.max(1, p.runs);
  const total = p.perRunMs;
  let out = `${p.name}\n total time: ${(total * runs).toFixed(6)} ms  samples: ${runs}  runs: `
    + `${p.runs}  time per run: ${total.toFixed(6)} ms\n`;
  if (p.threads !== null && p.threads !== undefined) {
    out += ` average threads used: ${p.threads.toFixed(6)}\n`;
  }
  out += ' heap allocations: not tracked by webhal\n';
  const sections = Object.entries(p.sections).filter(([, rows]) => rows?.length);
  if (p.sections['gpu kernels']?.length) out += ` gpu kernels timed by: ${p.kernelTiming}\n`;
  const width = Math.max(23, ...sections.flatMap(([, rows]) => rows.map((r) => r.name.length)));
  const titled = sections.some(([name]) => name !== 'funcs');
  for (const [name, rows] of sections) {
    if (titled) {
      const sum = rows.reduce((a, r) => a + r.ms, 0);
      out += `${timeAndPercent(`  [${name} `.padEnd(width + 7, ':'), sum, total, width + 7, true)} ::::]\n`;
    }
    for (const r of rows) {
      out += `${timeAndPercent(`    ${r.name}: `.padEnd(width + 7), r.ms, total, width + 7, false).trimEnd()}\n`;
    }
  }
  return out;
}

/**
 * `report` (readProfile's) with a webgpu variant's device times (a GpuProfiler) added to its
 * pipeline: the wait for the GPU after the wasm returned is overhead (time outside every
 * Func, in the run's total), then the sections "gpu kernels", "buffer copies to device" and
 * "buffer copies to host", per run and as shares of the run, as the Python runtimes print.
 */
export function withGpu(report, gpu) {
  if (!report || !gpu?.runs) return report;
  const heads = [...report.text.matchAll(HEAD)];
  if (!heads.length) return report;
  // A package's wasm runs one pipeline; were there more, the kernels are the last one's.
  const at = report.pipelines.length - 1;
  const p = report.pipelines[at];
  const perRun = (map) => [...map].map(([name, [ms]]) => ({ name, ms: ms / gpu.runs }));
  const after = gpu.afterMs / gpu.runs;
  const funcs = (p.sections.funcs ?? []).map((r) => ({ name: r.name, ms: r.ms }));
  const overhead = funcs.find((r) => r.name === 'overhead');
  if (overhead) overhead.ms += after;
  else funcs.unshift({ name: 'overhead', ms: after });
  const merged = { name: p.name, runs: p.runs, perRunMs: p.perRunMs + after,
    threads: / average threads used: /.test(report.text.slice(heads[at].index)) ? p.threads : null,
    kernelTiming: gpu.timing,
    sections: { funcs, 'gpu kernels': perRun(gpu.kernels),
      'buffer copies to device': perRun(gpu.copies['to device']),
      'buffer copies to host': perRun(gpu.copies['to host']) } };
  const text = report.text.slice(0, heads[at].index) + formatProfile(merged);
  return { text, pipelines: parseProfile(text) };
}

/**
 * Draw a profile (readProfile's) into `element`: per pipeline, a bar per Func (per kernel and
 * copy where the report has them), its length the share of the run.
 */
export function drawProfile(element, profile) {
  const doc = element.ownerDocument;
  element.replaceChildren();
  for (const p of profile?.pipelines ?? []) {
    const title = doc.createElement('div');
    title.textContent = `${p.name}: ${p.perRunMs.toFixed(3)} ms per run (${p.runs} runs)`;
    element.append(title);
    for (const [section, rows] of Object.entries(p.sections)) {
      for (const row of rows) {
        const line = doc.createElement('div');
        line.className = 'profile-row';
        line.title = section;
        const label = doc.createElement('span');
        label.textContent = `${row.name} ${row.ms.toFixed(3)} ms (${row.percent.toFixed(1)}%)`;
        label.style.cssText = 'display:inline-block;width:22em;font:12px monospace';
        const bar = doc.createElement('span');
        bar.style.cssText = `display:inline-block;height:0.8em;background:${section === 'funcs' ? '#4a7' : '#47a'};`
          + `width:${Math.min(100, row.percent) * 3}px`;
        line.append(label, bar);
        element.append(line);
      }
    }
  }
}
