// The webgpu variant's host copies and per-call cost against Dawn's own floors (issue 30):
// node benchmarks/gpu_io.mjs BUILD_DIR [--sizes 2048,8192] [--table 4096] [--calls 1000]
//   [--reps 10] [--only io,call,table,bw,threads] [--call-size 2048] [--bw-size 8192]
//   [--bw-runs 50] [--threads 5,16]
// BUILD_DIR holds the packages benchmarks/gpu_io.py builds (brighten_f32, copy_f32, unsharp,
// bilateral_grid, local_laplacian; webgpu variant). dawn.node is HL_WEBGPU_NODE_BINDINGS (the
// dawn.node file), else node_modules/webgpu's. Prints one JSON object (and a readable summary on stderr).
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? fallback : argv[i + 1];
};
const build = path.resolve(argv[0]);
const sizes = option('sizes', '2048,8192').split(',').map(Number);
const tableSize = Number(option('table', '4096'));
const calls = Number(option('calls', '1000'));
const callSize = Number(option('call-size', '2048'));
const reps = Number(option('reps', '10'));
const only = new Set(option('only', 'io,call,table').split(','));
const bwSize = Number(option('bw-size', '8192'));
const bwRuns = Number(option('bw-runs', '50'));
const threadCounts = option('threads', '5').split(',').map(Number);

const require = createRequire(import.meta.url);
const dawn = process.env.HL_WEBGPU_NODE_BINDINGS || path.join(path.dirname(
  require.resolve('webgpu/package.json')), 'dist', `${process.platform}-${process.arch}`, 'dawn.node');
const bindings = require(dawn);
const gpu = bindings.create([]);
const STORAGE = 0x80, COPY_DST = 0x8, COPY_SRC = 0x4, MAP_READ = 0x1;

const load = async (name) => (await import(pathToFileURL(path.join(build, name, 'index.js')))).create;
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
const log = (...a) => console.error(...a);
const now = () => performance.now();

// The median time of n calls of fn after one to warm up; with `own`, fn returns its own time.
async function timed(fn, n, own = false) {
  await fn();  // warm up: buffers made, pipelines compiled
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = now();
    const took = await fn();
    times.push(own ? took : now() - t);
  }
  return median(times);
}

// `fns` timed in the same rounds, one call of each per round in turn (ABAB...), after one
// round to warm up: each one's times, round by round. A ratio of two of them taken per round
// and its median over the rounds is robust to the machine's drift between rounds.
async function interleaved(fns, rounds) {
  for (const fn of fns) await fn();
  const times = fns.map(() => []);
  for (let i = 0; i < rounds; i++) {
    for (let j = 0; j < fns.length; j++) {
      const t = now();
      await fns[j]();
      times[j].push(now() - t);
    }
  }
  return times;
}

// The per-round ratios a[i] / b[i]: their median, quartiles and extremes.
function ratios(a, b) {
  const r = a.map((x, i) => x / b[i]).sort((x, y) => x - y);
  const at = (q) => r[Math.min(r.length - 1, Math.round(q * (r.length - 1)))];
  return { median: at(0.5), q1: at(0.25), q3: at(0.75), min: r[0], max: r[r.length - 1],
    rounds: r.length };
}
const spread = (q) => `${q.median.toFixed(3)}x (quartiles ${q.q1.toFixed(3)}-${q.q3.toFixed(3)}, `
  + `${q.rounds} rounds)`;

const result = { adapter: null, io: [], call: null, table: [], bw: null, threads: [] };

// (a) float32 brighten, typed arrays in and out, against Dawn's own round trip for the bytes.
// Dawn's own round trip of a call's bytes, the floor of a typed-array call: `data` written to
// `into` (writeBuffer), `from` copied into the reused MAP_READ buffer `staging`, mapped, and
// copied out into `out` (a typed array: its length in elements).
function roundTripOf(device, { into, data, from, staging, out }) {
  const bytes = out.byteLength;
  return async () => {
    device.queue.writeBuffer(into, 0, data);
    const e = device.createCommandEncoder();
    e.copyBufferToBuffer(from, 0, staging, 0, Math.ceil(bytes / 4) * 4);
    device.queue.submit([e.finish()]);
    await staging.mapAsync(MAP_READ);
    out.set(new out.constructor(staging.getMappedRange(), 0, out.length));
    staging.unmap();
  };
}

async function io(create) {
  const p = await create({ gpu, variant: 'webgpu' });
  const info = p.adapterInfo;
  result.adapter = info && `${info.description || info.device} (${info.vendor} ${info.architecture})`;
  const device = p.device;
  for (const n of sizes) {
    const count = n * n;
    const input = new Float32Array(count).map((_, i) => (i % 251) / 251);
    const out = new Float32Array(count);
    const inputs = { input: { data: input, shape: [n, n] }, gain: 1.5, bias: 0.1 };
    const r = Math.max(3, Math.round(reps * Math.min(1, (2048 * 2048) / count) * 2));
    await p.run(inputs, { shape: [n, n], data: out });
    const check = out[1000] === Math.fround(Math.fround(input[1000] * 1.5) + 0.1)
      || Math.abs(out[1000] - (input[1000] * 1.5 + 0.1)) < 1e-6;
    // The floor (roundTripOf).
    const bytes = count * 4;
    const src = device.createBuffer({ size: bytes, usage: STORAGE | COPY_DST | COPY_SRC });
    const staging = device.createBuffer({ size: bytes, usage: MAP_READ | COPY_DST });
    const roundTrip = roundTripOf(device, { into: src, data: input, from: src, staging, out });
    // In place, a new array and the round trip in the same rounds, in turn.
    const [inPlaceTimes, freshTimes, floorTimes] = await interleaved([
      () => p.run(inputs, { shape: [n, n], data: out }), () => p.run(inputs, { shape: [n, n] }),
      roundTrip], r);
    const [inPlace, fresh, floor] = [inPlaceTimes, freshTimes, floorTimes].map(median);
    const inPlaceOverRoundTrip = ratios(inPlaceTimes, floorTimes);
    const newArrayOverRoundTrip = ratios(freshTimes, floorTimes);
    // The kernel itself (on GPUBuffers, replayed): what a software adapter adds to the trip.
    const gpuIn = device.createBuffer({ size: bytes, usage: STORAGE | COPY_DST });
    const gpuOut = device.createBuffer({ size: bytes, usage: STORAGE | COPY_SRC });
    const { ms: kernel } = await kernelsAlone(p, [{ ...inputs, input: { data: gpuIn,
      shape: [n, n] } }, { shape: [n, n], data: gpuOut }], Math.max(3, r));
    for (const b of [src, staging, gpuIn, gpuOut]) b.destroy();
    const row = { size: n, inPlaceMs: inPlace, newArrayMs: fresh, floorMs: floor,
      kernelMs: kernel, ratio: inPlace / floor, ratioNewArray: fresh / floor,
      ratioWithKernel: inPlace / (floor + kernel), inPlaceOverRoundTrip, newArrayOverRoundTrip,
      correct: check };
    result.io.push(row);
    log(`brighten f32 ${n}x${n}: typed arrays in place ${inPlace.toFixed(3)} ms, new array `
      + `${fresh.toFixed(3)} ms; Dawn round trip ${floor.toFixed(3)} ms: `
      + `${row.ratio.toFixed(2)}x (new array ${row.ratioNewArray.toFixed(2)}x); the kernel `
      + `${kernel.toFixed(3)} ms: in place / (round trip + kernel) `
      + `${row.ratioWithKernel.toFixed(2)}x; per round (interleaved): in place / round trip `
      + `${spread(inPlaceOverRoundTrip)}, new array ${spread(newArrayOverRoundTrip)}`
      + `${check ? '' : ' (WRONG RESULT)'}`);
  }
  return p;
}

// Records what the runtime encodes (pipeline, bind group, workgroups of each dispatch), for
// replaying the kernel alone.
function recordDispatches(device) {
  const seen = [];
  const original = device.createCommandEncoder.bind(device);
  device.createCommandEncoder = (...a) => {
    const encoder = original(...a);
    const begin = encoder.beginComputePass.bind(encoder);
    encoder.beginComputePass = (...b) => {
      const pass = begin(...b);
      const state = {};
      const { setPipeline, setBindGroup, dispatchWorkgroups } = pass;
      pass.setPipeline = (x) => { state.pipeline = x; return setPipeline.call(pass, x); };
      pass.setBindGroup = (i, g) => { state.group = g; return setBindGroup.call(pass, i, g); };
      pass.dispatchWorkgroups = (...g) => {
        seen.push({ ...state, groups: g });
        return dispatchWorkgroups.apply(pass, g);
      };
      return pass;
    };
    return encoder;
  };
  return { seen, stop: () => { device.createCommandEncoder = original; } };
}

// The run's dispatches alone, replayed `k` times in one submission: ms per run.
async function kernelsAlone(p, args, k) {
  const device = p.device;
  const rec = recordDispatches(device);
  await p.run(...args);
  rec.stop();
  await device.queue.onSubmittedWorkDone();
  const replay = async (times) => {
    const e = device.createCommandEncoder();
    const pass = e.beginComputePass();
    for (let i = 0; i < times; i++) {
      for (const d of rec.seen) {
        pass.setPipeline(d.pipeline);
        pass.setBindGroup(0, d.group);
        pass.dispatchWorkgroups(...d.groups);
      }
    }
    pass.end();
    device.queue.submit([e.finish()]);
    await device.queue.onSubmittedWorkDone();
  };
  await replay(2);
  const each = [];
  for (let i = 0; i < 3; i++) {
    const t = now();
    await replay(k);
    each.push((now() - t) / k);
  }
  return { ms: median(each), dispatches: rec.seen };
}

// (b) one kernel on GPUBuffers: the median of `calls` awaited runs against the kernel alone
// (the same dispatch replayed many times in one submission) and a bare dispatch per submit.
async function call(p) {
  const device = p.device;
  const n = callSize;
  const bytes = n * n * 4;
  const input = device.createBuffer({ size: bytes, usage: STORAGE | COPY_DST });
  const output = device.createBuffer({ size: bytes, usage: STORAGE | COPY_SRC });
  device.queue.writeBuffer(input, 0, new Float32Array(n * n).fill(0.5));
  const args = [{ input: { data: input, shape: [n, n] }, gain: 1.5, bias: 0.1 },
    { shape: [n, n], data: output }];
  for (let i = 0; i < 20; i++) await p.run(...args);
  await device.queue.onSubmittedWorkDone();
  const times = [];
  for (let i = 0; i < calls; i++) {
    const t = now();
    await p.run(...args);
    times.push(now() - t);
  }
  await device.queue.onSubmittedWorkDone();
  const perCall = median(times);
  // Throughput: `calls` runs, then the queue drained.
  const t = now();
  for (let i = 0; i < calls; i++) await p.run(...args);
  await device.queue.onSubmittedWorkDone();
  const throughput = (now() - t) / calls;
  const alone = await kernelsAlone(p, args, calls);
  const kernel = alone.ms;
  const [d] = alone.dispatches;
  // A bare dispatch: one encoder, pass, dispatch and submit per call, as a page's own code.
  const submitBare = () => {
    const e = device.createCommandEncoder();
    const pass = e.beginComputePass();
    pass.setPipeline(d.pipeline);
    pass.setBindGroup(0, d.group);
    pass.dispatchWorkgroups(...d.groups);
    pass.end();
    device.queue.submit([e.finish()]);
  };
  const bare = [];
  for (let i = 0; i < calls; i++) {
    const t0 = now();
    submitBare();
    bare.push(now() - t0);
  }
  await device.queue.onSubmittedWorkDone();
  // The floor of one submission per run: bare dispatches back to back, the queue drained.
  const t1 = now();
  for (let i = 0; i < calls; i++) submitBare();
  await device.queue.onSubmittedWorkDone();
  const bareThroughput = (now() - t1) / calls;
  // A run costs what the GPU or the CPU spends on it, whichever is more: runs back to back
  // (throughput) against the kernel's own time.
  result.call = { size: n, dispatches: alone.dispatches.length, perCallMs: perCall,
    throughputMs: throughput, kernelMs: kernel, bareDispatchMs: median(bare),
    bareThroughputMs: bareThroughput, extraMs: Math.max(perCall, throughput) - kernel };
  log(`one kernel on GPUBuffers ${n}x${n}: median of ${calls} awaited runs ${perCall.toFixed(4)} `
    + `ms (${alone.dispatches.length} dispatch), ${throughput.toFixed(4)} ms each back to back; `
    + `the kernel alone ${kernel.toFixed(4)} ms; a bare dispatch+submit `
    + `${median(bare).toFixed(4)} ms, ${bareThroughput.toFixed(4)} ms each back to back; extra `
    + `${result.call.extraMs.toFixed(4)} ms`);
  input.destroy();
  output.destroy();
}

// (c) the demos at tableSize, typed arrays in and out (new output arrays, as a page calls
// them; and written in place) against GPUBuffers in and out (runs back to back, queue drained).
const DEMOS = [
  ['local_laplacian', 3, { alpha: 1.5, beta: 1.0 }],
  ['bilateral_grid', 0, { r_sigma: 0.1 }],
  ['unsharp', 3, { amount: 1.5 }],
];
// (e) the demos' wasm threads variant at tableSize, typed arrays in and out (the issue's
// 'wasm threads' column, measured on 16 threads though labelled 4 workers: benchmarks/README.md),
// for each of threadCounts (the caller included): the
// median of r runs after one.
async function threadsTable() {
  const n = tableSize;
  for (const threadCount of threadCounts) for (const [name, channels, scalars] of DEMOS) {
    let create;
    try { create = await load(name); } catch (e) { log(`${name}: not built (${e.message})`); continue; }
    const p = await create({ variant: 'threads', threads: threadCount });
    if (p.variant !== 'threads') throw new Error(`${name}: ${p.variant} ran (${p.reason})`);
    const shape = channels ? [n, n, channels] : [n, n];
    const count = shape.reduce((a, b) => a * b);
    const data = new Uint8Array(count).map((_, i) => (i * 7919) % 251);
    const ms = await timed(() => p.run({ input: { data, shape }, ...scalars }, { shape }),
      Math.max(5, reps));
    result.threads.push({ demo: name, shape, threads: p.threads, typedMs: ms });
    log(`${name} ${shape.join('x')}: wasm threads (${p.threads} threads) ${ms.toFixed(2)} ms`);
    await p.dispose();
  }
}

async function table() {
  const n = tableSize;
  for (const [name, channels, scalars] of DEMOS) {
    let create;
    try { create = await load(name); } catch (e) { log(`${name}: not built (${e.message})`); continue; }
    const p = await create({ gpu, variant: 'webgpu' });
    const device = p.device;
    const shape = channels ? [n, n, channels] : [n, n];
    const count = shape.reduce((a, b) => a * b);
    const data = new Uint8Array(count).map((_, i) => (i * 7919) % 251);
    const inputs = { input: { data, shape }, ...scalars };
    const r = Math.max(3, reps);
    const mine = new Uint8Array(count);
    const words = Math.ceil(count / 4) * 4;
    const input = device.createBuffer({ size: words, usage: STORAGE | COPY_DST });
    const padded = new Uint8Array(words);
    padded.set(data);
    device.queue.writeBuffer(input, 0, padded);
    const output = device.createBuffer({ size: words, usage: STORAGE | COPY_SRC });
    const staging = device.createBuffer({ size: words, usage: MAP_READ | COPY_DST });
    // Dawn's round trip for this call's bytes (in and out), the floor of the typed-array call.
    const roundTrip = roundTripOf(device, { into: input, data: padded, from: output, staging,
      out: mine });
    // Typed arrays (a new output array, as a page calls them; and written in place) and the
    // round trip in the same rounds, in turn: their ratio per round, its median over the
    // rounds (the round trip alone moved 9-18% between runs).
    const [typedTimes, inPlaceTimes, floorTimes] = await interleaved([
      () => p.run(inputs, { shape }), () => p.run(inputs, { shape, data: mine }), roundTrip],
    2 * r);
    const typed = median(typedTimes);
    const inPlace = median(inPlaceTimes);
    const floor = median(floorTimes);
    const typedOverRoundTrip = ratios(typedTimes, floorTimes);
    const inPlaceOverRoundTrip = ratios(inPlaceTimes, floorTimes);
    const onGpu = [{ ...inputs, input: { data: input, shape } }, { shape, data: output }];
    for (let i = 0; i < 3; i++) await p.run(...onGpu);
    await device.queue.onSubmittedWorkDone();
    // One run alone on an idle GPU, drained: what a typed-array call waits for besides its
    // copies. A GPU idle through the call's host copies runs its kernels at idle clocks (the
    // H200: 345 MHz, not 1980), so a compute-bound pipeline takes several times its back-to-back
    // time here (the local Laplacian at 4096: 7 ms, not 1.35). Measured before the runs back to
    // back, after which the clock stays up for seconds.
    const alone = await timed(async () => {
      await new Promise((resolve) => setTimeout(resolve, 25));
      const t0 = now();
      await p.run(...onGpu);
      await device.queue.onSubmittedWorkDone();
      return now() - t0;
    }, r, true);
    const k = Math.max(5, reps * 5);
    // Per awaited run (what the CPU spends; the GPU may still be busy), then back to back with
    // the queue drained (what the GPU spends too). The local Laplacian's gathers make its
    // kernels' time depend on the data: a constant image runs several times faster.
    const awaited = await timed(() => p.run(...onGpu), k);
    await device.queue.onSubmittedWorkDone();
    const t = now();
    for (let i = 0; i < k; i++) await p.run(...onGpu);
    await device.queue.onSubmittedWorkDone();
    const buffers = (now() - t) / k;
    const row = { demo: name, shape, typedMs: typed, inPlaceMs: inPlace, gpuBuffersMs: buffers,
      gpuBuffersAwaitedMs: awaited, gpuBuffersAloneMs: alone, roundTripMs: floor,
      typedOverFloor: typed / (floor + buffers), inPlaceOverFloor: inPlace / (floor + buffers),
      inPlaceOverFloorAlone: inPlace / (floor + alone), typedOverRoundTrip,
      inPlaceOverRoundTrip };
    result.table.push(row);
    log(`${name} ${shape.join('x')}: typed arrays ${typed.toFixed(2)} ms (in place `
      + `${inPlace.toFixed(2)}), GPUBuffers ${buffers.toFixed(3)} ms (awaited, GPU not waited `
      + `for: ${awaited.toFixed(3)} ms), Dawn round trip of its bytes ${floor.toFixed(2)} ms; `
      + `typed / (GPUBuffers + round trip) ${row.typedOverFloor.toFixed(2)}x (in place `
      + `${row.inPlaceOverFloor.toFixed(2)}x); one run alone on an idle GPU ${alone.toFixed(2)} ms, `
      + `in place / (run alone + round trip) ${row.inPlaceOverFloorAlone.toFixed(2)}x; per round `
      + `(interleaved): typed / round trip ${spread(typedOverRoundTrip)}, in place / round trip `
      + `${spread(inPlaceOverRoundTrip)}`);
    for (const b of [input, output, staging]) b.destroy();
    await p.dispose();
  }
}

// (d) bandwidth on one device: a hand-written WGSL copy against the packages' copy and brighten
// on GPUBuffers. The device has no 'timestamp-query' (the package does not ask for it unless
// profiled), so the GPU time is the wall clock of many dispatches in one submission, drained.
const HAND_COPY = `
@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
  let i = g.y * n.x * 256u + g.x;
  if (i < arrayLength(&dst)) { dst[i] = src[i]; }
}`;
async function bandwidth() {
  const n = bwSize;
  const bytes = n * n * 4;
  const gbs = (ms) => (2 * bytes) / (ms * 1e6);
  const createCopy = await load('copy_f32');
  const pc = await createCopy({ gpu, variant: 'webgpu' });
  const device = pc.device;
  const info = pc.adapterInfo;
  result.adapter = info && `${info.description || info.device} (${info.vendor} ${info.architecture})`;
  const pb = await (await load('brighten_f32'))({ gpu, variant: 'webgpu', device });
  const input = device.createBuffer({ size: bytes, usage: STORAGE | COPY_DST | COPY_SRC });
  const output = device.createBuffer({ size: bytes, usage: STORAGE | COPY_SRC | COPY_DST });
  const host = new Float32Array(n * n);
  for (let i = 0; i < host.length; i++) host[i] = (i % 251) / 251;
  device.queue.writeBuffer(input, 0, host);
  // A few values of the output, to check each kernel did its work.
  const probe = device.createBuffer({ size: 16, usage: MAP_READ | COPY_DST });
  const at = 4 * (n * n - 7);  // near the end: the whole grid was covered
  const check = async (want) => {
    const e = device.createCommandEncoder();
    e.clearBuffer(output);
    device.queue.submit([e.finish()]);
    await want.run();
    const c = device.createCommandEncoder();
    c.copyBufferToBuffer(output, at, probe, 0, 16);
    device.queue.submit([c.finish()]);
    await probe.mapAsync(MAP_READ);
    const got = [...new Float32Array(probe.getMappedRange())];
    probe.unmap();
    const x = host.subarray(at / 4, at / 4 + 4);
    return got.every((v, i) => Math.abs(v - want.f(x[i])) < 1e-6);
  };
  // The hand-written copy: workgroups of 256 threads, a vec4 each, on a 2D grid (65535 groups
  // at most per dimension).
  const module = device.createShaderModule({ code: HAND_COPY });
  const pipeline = device.createComputePipeline({ layout: 'auto',
    compute: { module, entryPoint: 'main' } });
  const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [
    { binding: 0, resource: { buffer: input } }, { binding: 1, resource: { buffer: output } }] });
  const groups = (n * n) / 4 / 256;
  const gx = Math.min(groups, 1024);
  const hand = async (times, perSubmit = false) => {
    let e = device.createCommandEncoder();
    let pass = e.beginComputePass();
    for (let i = 0; i < times; i++) {
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, group);
      pass.dispatchWorkgroups(gx, Math.ceil(groups / gx));
      if (perSubmit) {
        pass.end();
        device.queue.submit([e.finish()]);
        e = device.createCommandEncoder();
        pass = e.beginComputePass();
      }
    }
    pass.end();
    device.queue.submit([e.finish()]);
    await device.queue.onSubmittedWorkDone();
  };
  const handOk = await check({ run: () => hand(1), f: (v) => v });
  const per = async (fn, k, rounds = 5) => {
    await fn(2);
    const each = [];
    for (let i = 0; i < rounds; i++) {
      const t = now();
      await fn(k);
      each.push((now() - t) / k);
    }
    return median(each);
  };
  const handMs = await per((k) => hand(k), bwRuns);
  const handEachSubmitMs = await per((k) => hand(k, true), bwRuns);
  result.bw = { size: n, bytesMoved: 2 * bytes, runs: bwRuns, timing: 'wall clock of many '
    + 'dispatches, one submission, queue drained (no timestamp-query on the package device)',
    hand: { ms: handMs, gbs: gbs(handMs), eachSubmitMs: handEachSubmitMs,
      eachSubmitGbs: gbs(handEachSubmitMs), correct: handOk }, packages: [] };
  log(`bandwidth ${n}x${n} float32 (${(2 * bytes / 2 ** 20).toFixed(0)} MiB read + written), `
    + `${bwRuns} runs: hand-written WGSL copy ${handMs.toFixed(4)} ms = ${gbs(handMs).toFixed(0)} `
    + `GB/s in one submission (a submission each: ${handEachSubmitMs.toFixed(4)} ms = `
    + `${gbs(handEachSubmitMs).toFixed(0)} GB/s)${handOk ? '' : ' (WRONG RESULT)'}`);
  const packages = [
    ['copy_f32', pc, {}, (v) => v],
    ['brighten_f32', pb, { gain: 1.5, bias: 0.1 }, (v) => Math.fround(v * 1.5) + 0.1],
  ];
  for (const [name, p, scalars, f] of packages) {
    const args = [{ input: { data: input, shape: [n, n] }, ...scalars }, { shape: [n, n], data: output }];
    const ok = await check({ run: async () => { await p.run(...args);
      await device.queue.onSubmittedWorkDone(); }, f });
    for (let i = 0; i < 5; i++) await p.run(...args);
    await device.queue.onSubmittedWorkDone();
    // Back to back, the queue drained at the end: what the GPU spends per run.
    const drained = await per(async (k) => {
      for (let i = 0; i < k; i++) await p.run(...args);
      await device.queue.onSubmittedWorkDone();
    }, bwRuns, 3);
    // The median awaited run (an awaited run on GPUBuffers does not wait for the GPU).
    const times = [];
    for (let i = 0; i < bwRuns; i++) {
      const t = now();
      await p.run(...args);
      times.push(now() - t);
    }
    await device.queue.onSubmittedWorkDone();
    const awaited = median(times);
    const alone = await kernelsAlone(p, args, bwRuns);
    const row = { name, drainedMs: drained, gbs: gbs(drained), ratio: handMs / drained,
      awaitedMs: awaited, kernelAloneMs: alone.ms, kernelAloneGbs: gbs(alone.ms),
      kernelAloneRatio: handMs / alone.ms, dispatches: alone.dispatches.length, correct: ok };
    result.bw.packages.push(row);
    log(`  ${name} through p.run on GPUBuffers: ${drained.toFixed(4)} ms per run back to back `
      + `(drained) = ${row.gbs.toFixed(0)} GB/s, ${(100 * row.ratio).toFixed(1)}% of the `
      + `hand-written copy; median awaited run ${awaited.toFixed(4)} ms; its ${row.dispatches} `
      + `dispatch(es) replayed alone ${alone.ms.toFixed(4)} ms = ${row.kernelAloneGbs.toFixed(0)} `
      + `GB/s (${(100 * row.kernelAloneRatio).toFixed(1)}%)${ok ? '' : ' (WRONG RESULT)'}`);
  }
  for (const b of [input, output, probe]) b.destroy();
  await pb.dispose();
  await pc.dispose();
}

let p = null;
if (only.has('bw')) await bandwidth();
if (only.has('io') || only.has('call')) {
  const create = await load('brighten_f32');
  if (only.has('io')) p = await io(create);
  else p = await create({ gpu, variant: 'webgpu' });
  if (only.has('call')) await call(p);
  await p.dispose();
}
if (only.has('table')) await table();
if (only.has('threads')) await threadsTable();
console.log(JSON.stringify(result));
process.exit(0);
