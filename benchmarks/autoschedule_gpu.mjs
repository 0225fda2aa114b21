// benchmarks/autoschedule.py --webgpu: each demo's webgpu variant, hand-scheduled (hand/) and
// autoscheduled (auto/; and before/ where built: another autoschedule, e.g. of an earlier
// commit), on GPUBuffers in and out at SIZE^2, in interleaved rounds.
// node run.mjs BUILD_DIR SIZE ROUNDS; dawn.node is HL_WEBGPU_NODE_BINDINGS or node_modules/webgpu.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
const [build, n, rounds] = [path.resolve(process.argv[2]), Number(process.argv[3]),
  Number(process.argv[4])];
const require = createRequire(import.meta.url);
const gpu = require(process.env.HL_WEBGPU_NODE_BINDINGS || require.resolve('webgpu')).create([]);
const DEMOS = JSON.parse(process.argv[5]);
const STORAGE = 0x80, COPY_DST = 0x8, COPY_SRC = 0x4;
const now = () => performance.now();
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
const out = { adapter: null, size: n, demos: [] };
async function measure(name, channels, scalars, margin) {
  const shape = channels ? [n, n, channels] : [n, n];
  const outShape = channels ? [n - margin, n - margin, channels] : [n - margin, n - margin];
  const count = shape.reduce((a, b) => a * b);
  const data = new Uint8Array(count).map((_, i) => (i * 7919 + (i >> 9) * 13) % 251);
  const sides = {};
  for (const kind of ['hand', 'auto', 'before']) {
    let create;
    try {
      ({ create } = await import(pathToFileURL(path.join(build, name, kind, 'index.js'))));
    } catch (e) {
      if (kind !== 'before') console.error(`${name} ${kind}: not built`);
      continue;
    }
    const p = await create({ gpu, variant: 'webgpu' });
    const info = p.adapterInfo;
    out.adapter = info
      && `${info.description || info.device} (${info.vendor} ${info.architecture})`;
    const device = p.device;
    const words = Math.ceil(count / 4) * 4;
    const padded = new Uint8Array(words);
    padded.set(data);
    const input = device.createBuffer({ size: words, usage: STORAGE | COPY_DST });
    device.queue.writeBuffer(input, 0, padded);
    const outWords = Math.ceil(outShape.reduce((a, b) => a * b) / 4) * 4;
    const output = device.createBuffer({ size: outWords, usage: STORAGE | COPY_SRC });
    const inputs = { ...scalars, input: { data: input, shape } };
    const typed = await p.run({ ...scalars, input: { data, shape } }, { shape: outShape });
    sides[kind] = { p, device, args: [inputs, { shape: outShape, data: output }],
      typed: typed.data,
      buffers: [input, output], times: [] };
  }
  if (!sides.hand || !sides.auto) return;
  let diff = 0;
  for (let i = 0; i < sides.hand.typed.length; i++) {
    diff = Math.max(diff, Math.abs(sides.hand.typed[i] - sides.auto.typed[i]));
  }
  const roundMs = Number(process.env.ROUND_MS || 50);
  for (const s of Object.values(sides)) {  // warm-up, and calls enough for ROUND_MS a round
    for (let i = 0; i < 3; i++) await s.p.run(...s.args);
    await s.device.queue.onSubmittedWorkDone();
    const t = now();
    for (let i = 0; i < 3; i++) await s.p.run(...s.args);
    await s.device.queue.onSubmittedWorkDone();
    s.k = Math.max(5, Math.ceil(roundMs / ((now() - t) / 3)));
  }
  const order = [sides.hand, sides.auto, ...(sides.before ? [sides.before] : [])];
  for (let r = 0; r < rounds; r++) {  // in turn, then reversed: a drift falls on every side
    for (const s of (r % 2 ? [...order].reverse() : order)) {
      const k = s.k;
      const t = now();
      for (let i = 0; i < k; i++) await s.p.run(...s.args);
      await s.device.queue.onSubmittedWorkDone();
      s.times.push((now() - t) / k);
    }
  }
  const row = { demo: name, shape, maxDiff: diff, handMs: sides.hand.times,
    autoMs: sides.auto.times, ratios: sides.auto.times.map((a, i) => a / sides.hand.times[i]) };
  if (sides.before) {
    row.beforeMs = sides.before.times;
    row.beforeRatios = sides.before.times.map((a, i) => a / sides.hand.times[i]);
    row.afterBefore = sides.auto.times.map((a, i) => a / sides.before.times[i]);
    for (let i = 0; i < sides.hand.typed.length; i++) {
      diff = Math.max(diff, Math.abs(sides.hand.typed[i] - sides.before.typed[i]));
    }
    row.maxDiff = diff;
  }
  out.demos.push(row);
  console.error(`${name}: hand ${median(row.handMs).toFixed(3)} ms, auto `
    + `${median(row.autoMs).toFixed(3)} ms, auto/hand ${median(row.ratios).toFixed(2)} `
    + `(${Math.min(...row.ratios).toFixed(2)}-${Math.max(...row.ratios).toFixed(2)}), `
    + `max diff ${diff}`);
  for (const s of Object.values(sides)) {
    for (const b of s.buffers) b.destroy();
    await s.p.dispose();
  }
}
for (const [name, [channels, scalars, margin]] of Object.entries(DEMOS)) {
  try {
    await measure(name, channels, scalars, margin);
  } catch (e) {
    out.demos.push({ demo: name, error: String(e && e.message || e) });
    console.error(`${name}: failed: ${e && e.message || e}`);
  }
}
console.log(JSON.stringify(out));
process.exit(0);
