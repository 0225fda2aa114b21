// node li2018.mjs HALIDE_DIR WEBHAL_DIR SIZE ROUNDS BATCH_MS '[channels, {scalars}, margin]'
//   [WARMUP_MS]
// One Node process, both sides: Halide's module (bench.js: harness.cpp and Li2018's library) and webhal's packages
// (benchmarks.autoschedule.GPU_BUILD/NAME/{auto,hand}) on dawn.node, each with its own device
// of the same adapter. A side's sample is one batch: `k` calls through its public entry as a
// user makes them (Halide: the C function, in a loop inside one ccall; webhal: `await
// p.run(...)` in a loop, GPUBuffers in and out), then `await device.queue.onSubmittedWorkDone()`
// on the side's own device, timed with performance.now() from before the first call to after
// the wait. Each side's k is found the same way (batches growing until one lasts BATCH_MS),
// after warm-up calls (WARMUP_MS of them a side, 1000 by default). Rounds run every side once,
// in turn, reversed every other round (ABC CBA), so a drift of the machine falls on all of
// them. Printed (stdout, JSON): per side the ms a call of each round (wall clock), the
// process's CPU ms a call over the same batch (user + system of all its threads, SwiftShader's
// among them: on a CPU adapter, the work done), k, the output's sum; a summary line on
// stderr.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
const require = createRequire(import.meta.url);
const [halideDir, webhalDir] = [path.resolve(process.argv[2]), path.resolve(process.argv[3])];
const [n, rounds, batchMs] = [4, 5, 6].map((i) => Number(process.argv[i]));
const [channels, scalars, margin] = JSON.parse(process.argv[7]);
const warmupMs = Number(process.argv[8] || 1000);
const dawn = require(process.env.HL_WEBGPU_NODE_BINDINGS || require.resolve('webgpu'));
Object.assign(globalThis, dawn.globals);
const gpu = dawn.create([]);
const halideDevices = [];  // the devices Halide's runtime makes through navigator.gpu
const hooked = {
  requestAdapter: async (options) => {
    const adapter = await gpu.requestAdapter(options);
    if (!adapter) return adapter;
    return new Proxy(adapter, { get(target, key) {
      if (key === 'requestDevice') {
        return async (desc) => {
          const device = await target.requestDevice(desc);
          halideDevices.push(device);
          return device;
        };
      }
      const v = target[key];
      return typeof v === 'function' ? v.bind(target) : v;
    } });
  },
  getPreferredCanvasFormat: () => gpu.getPreferredCanvasFormat(),
};
Object.defineProperty(globalThis, 'navigator',
  { value: { gpu: hooked }, configurable: true, writable: true });
const now = () => performance.now();
const STORAGE = 0x80, COPY_DST = 0x8, COPY_SRC = 0x4;
const shape = channels ? [n, n, channels] : [n, n];
const outShape = channels ? [n - margin, n - margin, channels] : [n - margin, n - margin];
const count = shape.reduce((a, b) => a * b);
const data = new Uint8Array(count).map((_, i) => (i * 7919 + (i >> 9) * 13) % 251);
const sides = [];
const out = { size: n, sides: {} };

const factory = require(path.join(halideDir, 'bench.js'));
const M = await factory();
const halideSum = await M.ccall('bench_setup', 'number', [], [], { async: true });
if (!(halideSum >= 0)) throw new Error(`Halide's pipeline failed: ${halideSum}`);
const hdev = halideDevices[halideDevices.length - 1];
sides.push({ name: 'li2018', device: hdev, sum: halideSum, calls: async (k) => {
  const err = await M.ccall('bench_calls', 'number', ['number'], [k], { async: true });
  if (err) throw new Error(`Halide's pipeline failed: ${err}`);
} });

for (const kind of ['auto', 'hand']) {
  const { create } = await import(pathToFileURL(path.join(webhalDir, kind, 'index.js')));
  const p = await create({ gpu, variant: 'webgpu' });
  const info = p.adapterInfo;
  out.adapter = info && `${info.description || info.device} (${info.vendor} ${info.architecture})`;
  const device = p.device;
  const padded = new Uint8Array(Math.ceil(count / 4) * 4);
  padded.set(data);
  const input = device.createBuffer({ size: padded.length, usage: STORAGE | COPY_DST });
  device.queue.writeBuffer(input, 0, padded);
  const outBytes = Math.ceil(outShape.reduce((a, b) => a * b) / 4) * 4;
  const output = device.createBuffer({ size: outBytes, usage: STORAGE | COPY_SRC });
  const typed = await p.run({ ...scalars, input: { data, shape } }, { shape: outShape });
  let sum = 0;
  for (const v of typed.data) sum += v;
  const args = [{ ...scalars, input: { data: input, shape } }, { shape: outShape, data: output }];
  sides.push({ name: kind, device, sum, calls: async (k) => {
    for (let i = 0; i < k; i++) await p.run(...args);
  } });
}

async function batch(side, k) {  // ms a call: k calls, then one wait for the GPU
  const t = now(), cpu = process.cpuUsage();
  await side.calls(k);
  await side.device.queue.onSubmittedWorkDone();
  const ms = (now() - t) / k, used = process.cpuUsage(cpu);
  if (side.cpu) side.cpu.push((used.user + used.system) / 1e3 / k);
  return ms;
}
for (const s of sides) {  // warm-up, then k: batches growing until one lasts batchMs
  // warm-up: calls for warmupMs (a GPU's clocks rise only under sustained load: the H200's
  // SM clock idles at 345 MHz), at least three
  const start = now();
  for (let i = 0; i < 3 || now() - start < warmupMs; i++) await batch(s, 1);
  let k = 1;
  for (;;) {
    const ms = (await batch(s, k)) * k;
    if (ms >= batchMs / 2 || k >= 1 << 16) {
      s.k = Math.max(1, Math.round(k * batchMs / Math.max(ms, 1e-3)));
      break;
    }
    k = Math.min(1 << 16, Math.ceil(k * Math.min(16, batchMs / Math.max(ms, 1e-3))));
  }
  s.ms = [];
  s.cpu = [];
}
for (let r = 0; r < rounds; r++) {
  for (const s of (r % 2 ? [...sides].reverse() : sides)) s.ms.push(await batch(s, s.k));
}
for (const s of sides) out.sides[s.name] = { ms: s.ms, cpuMs: s.cpu, k: s.k, sum: s.sum };
const li = out.sides.li2018.ms, auto = out.sides.auto.ms;
const ratios = li.map((v, i) => v / auto[i]).sort((a, b) => a - b);
const q = (f) => ratios[Math.min(ratios.length - 1, Math.floor(f * ratios.length))];
console.error(`Li2018/auto ${q(0.5).toFixed(2)} (quartiles ${q(0.25).toFixed(2)}-`
  + `${q(0.75).toFixed(2)}, ${ratios[0].toFixed(2)}-${ratios[ratios.length - 1].toFixed(2)}), `
  + `k ${sides.map((s) => `${s.name} ${s.k}`).join(', ')}, sums `
  + `${sides.map((s) => s.sum).join(' ')}`);
console.log(JSON.stringify(out));
process.exit(0);
