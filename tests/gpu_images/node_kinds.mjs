// Image inputs and outputs of the image_kinds package on dawn.node (tests/gpu_images): GPUTexture
// and ImageData in, GPUTexture out, typed arrays where the test compares through them; prints
// JSON of the bytes it sent and got, which the test checks against the reference evaluator.
// argv: the package's index.js URL, width, height.
import { createRequire } from 'node:module';

const [index, W, H] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const { create: createGpu, globals } = createRequire(import.meta.url)(process.env.HL_WEBGPU_NODE_BINDINGS);
Object.assign(globalThis, globals);
const { create } = await import(index);
const p = await create({ variant: 'webgpu', gpu: createGpu([]) });
const d = p.device;
const U = GPUTextureUsage;

const rgba = Uint8Array.from({ length: W * H * 4 }, (_, i) => (i * 37 + 11) % 256);
const other = Uint8Array.from({ length: W * H * 4 }, (_, i) => (i * 101 + 7) % 256);
const grey = Uint8Array.from({ length: W * H }, (_, i) => (i * 53 + 3) % 256);
const level = Float32Array.from({ length: W * H }, (_, i) => ((i * 29) % 97) / 96 - 0.1);

function texture(format, bytes, bpp) {
  // rgba8unorm and r32float are storable: as targets, packed by a compute kernel; bgra8unorm
  // and r8unorm (COPY_DST) by a kernel writing bytes that are copied in (run 1b: a render pass).
  const storable = ['rgba8unorm', 'r32float'].includes(format) ? U.STORAGE_BINDING : 0;
  const t = d.createTexture({ size: [W, H], format,
    usage: U.TEXTURE_BINDING | U.COPY_DST | U.COPY_SRC | U.RENDER_ATTACHMENT | storable });
  if (bytes) d.queue.writeTexture({ texture: t }, bytes, { bytesPerRow: W * bpp }, [W, H]);
  return t;
}
async function read(t, bpp) {
  const row = Math.ceil((W * bpp) / 256) * 256;
  const b = d.createBuffer({ size: row * H, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const e = d.createCommandEncoder();
  e.copyTextureToBuffer({ texture: t }, { buffer: b, bytesPerRow: row }, [W, H]);
  d.queue.submit([e.finish()]);
  await b.mapAsync(GPUMapMode.READ);
  const all = new Uint8Array(b.getMappedRange());
  const out = new Uint8Array(W * H * bpp);
  for (let y = 0; y < H; y++) out.set(all.subarray(y * row, y * row + W * bpp), y * W * bpp);
  b.unmap();
  return out;
}
const list = (bytes) => Array.from(bytes);
const floats = (bytes) => Array.from(new Float32Array(bytes.buffer));

// Run 1: textures of every format in, textures out.
const outs = { planar_out: texture('rgba8unorm', null, 4), interleaved_out: texture('bgra8unorm', null, 4),
  grey_out: texture('r8unorm', null, 1), level_out: texture('r32float', null, 4) };
const got1 = await p.run({
  planar: texture('rgba8unorm', rgba, 4),
  interleaved: { data: { data: new Uint8ClampedArray(other), width: W, height: H }, shape: [3, W, H] },
  grey: texture('r8unorm', grey, 1),
  level: texture('r32float', new Uint8Array(level.buffer), 4),
}, Object.fromEntries(Object.entries(outs).map(([k, t]) => [k, {
  shape: k === 'interleaved_out' ? [3, W, H] : k === 'planar_out' ? [W, H, 3] : [W, H], data: t }])));
const bgra = await read(outs.interleaved_out, 4);
for (let i = 0; i < bgra.length; i += 4) [bgra[i], bgra[i + 2]] = [bgra[i + 2], bgra[i]];
const run1 = { planar_out: list(await read(outs.planar_out, 4)), interleaved_out: list(bgra),
  grey_out: list(await read(outs.grey_out, 1)), level_out: floats(await read(outs.level_out, 4)),
  returned: Object.fromEntries(Object.entries(got1).map(([k, v]) => [k, v.data === outs[k]])) };

// Run 1b: the same, bgra8unorm and r8unorm targets without COPY_DST (a render pass packs them).
const drawn = (format) => d.createTexture({ size: [W, H], format, usage: U.RENDER_ATTACHMENT | U.COPY_SRC });
const outs1b = { interleaved_out: drawn('bgra8unorm'), grey_out: drawn('r8unorm') };
await p.run({
  planar: texture('rgba8unorm', rgba, 4),
  interleaved: { data: { data: new Uint8ClampedArray(other), width: W, height: H }, shape: [3, W, H] },
  grey: texture('r8unorm', grey, 1),
  level: texture('r32float', new Uint8Array(level.buffer), 4),
}, { planar_out: { shape: [W, H, 3] }, interleaved_out: { shape: [3, W, H], data: outs1b.interleaved_out },
  grey_out: { shape: [W, H], data: outs1b.grey_out }, level_out: { shape: [W, H] } });
const bgra1b = await read(outs1b.interleaved_out, 4);
for (let i = 0; i < bgra1b.length; i += 4) [bgra1b[i], bgra1b[i + 2]] = [bgra1b[i + 2], bgra1b[i]];
const run1b = { interleaved_out: list(bgra1b), grey_out: list(await read(outs1b.grey_out, 1)) };

// Run 3: textures in and out only (the inputs of run 1, `other` as an rgba8unorm texture),
// the same texture objects twice. The first run awaits WebGPU's verdict on them (an input
// submission, the run's, an output submission); the second puts the unpack kernels, the
// pipeline's and the pack kernels (and the r8unorm / bgra8unorm row copies) in one command
// encoder and one submission. The targets are cleared in between; both runs equal run 1.
const submits = { n: 0 };
const queueSubmit = d.queue.submit.bind(d.queue);
d.queue.submit = (...a) => { submits.n += 1; return queueSubmit(...a); };
const ins3 = { planar: texture('rgba8unorm', rgba, 4), interleaved: texture('rgba8unorm', other, 4),
  grey: texture('r8unorm', grey, 1), level: texture('r32float', new Uint8Array(level.buffer), 4) };
const outs3 = { planar_out: texture('rgba8unorm', null, 4), interleaved_out: texture('bgra8unorm', null, 4),
  grey_out: texture('r8unorm', null, 1), level_out: texture('r32float', null, 4) };
const specs3 = Object.fromEntries(Object.entries(outs3).map(([k, t]) => [k, {
  shape: k === 'interleaved_out' ? [3, W, H] : k === 'planar_out' ? [W, H, 3] : [W, H], data: t }]));
const run3 = { submits: [] };
for (let i = 0; i < 2; i++) {
  for (const [k, t] of Object.entries(outs3)) {
    const bpp = k === 'grey_out' ? 1 : 4;
    d.queue.writeTexture({ texture: t }, new Uint8Array(W * H * bpp), { bytesPerRow: W * bpp }, [W, H]);
  }
  submits.n = 0;
  await p.run(ins3, specs3);
  run3.submits.push(submits.n);
  const bgra3 = await read(outs3.interleaved_out, 4);
  for (let j = 0; j < bgra3.length; j += 4) [bgra3[j], bgra3[j + 2]] = [bgra3[j + 2], bgra3[j]];
  run3[i] = { planar_out: list(await read(outs3.planar_out, 4)), interleaved_out: list(bgra3),
    grey_out: list(await read(outs3.grey_out, 1)), level_out: floats(await read(outs3.level_out, 4)) };
}
d.queue.submit = queueSubmit;

// Run 4: a grey uint8 output 256 pixels wide into an r8unorm target with COPY_DST: its bytes
// are the texture's rows, copied in without a kernel. Mismatches against grey // 2 + 64.
const [W4, H4] = [256, 8];
const grey4 = Uint8Array.from({ length: W4 * H4 }, (_, i) => (i * 53 + 3) % 256);
const target4 = d.createTexture({ size: [W4, H4], format: 'r8unorm',
  usage: U.COPY_DST | U.COPY_SRC | U.TEXTURE_BINDING });
await p.run({ planar: { data: new Uint8Array(W4 * H4 * 3), shape: [W4, H4, 3] },
  interleaved: { data: new Uint8Array(W4 * H4 * 3), shape: [3, W4, H4] },
  grey: { data: grey4, shape: [W4, H4] }, level: { data: new Float32Array(W4 * H4), shape: [W4, H4] } },
{ planar_out: { shape: [W4, H4, 3] }, interleaved_out: { shape: [3, W4, H4] },
  grey_out: { shape: [W4, H4], data: target4 }, level_out: { shape: [W4, H4] } });
const rows4 = d.createBuffer({ size: W4 * H4, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
const e4 = d.createCommandEncoder();
e4.copyTextureToBuffer({ texture: target4 }, { buffer: rows4, bytesPerRow: W4 }, [W4, H4]);
d.queue.submit([e4.finish()]);
await rows4.mapAsync(GPUMapMode.READ);
const got4 = new Uint8Array(rows4.getMappedRange());
const direct = grey4.reduce((bad, v, i) => bad + (got4[i] !== (v >> 1) + 64 ? 1 : 0), 0);
rows4.unmap();

// Run 2: colour sources for the grey inputs (luma), ImageData planar, typed arrays out; the
// same textures again (the staging buffers are reused).
const got2 = await p.run({
  planar: { data: new Uint8ClampedArray(other), width: W, height: H },
  interleaved: texture('rgba8unorm', rgba, 4),
  grey: texture('rgba8unorm', rgba, 4),
  level: { data: new Uint8ClampedArray(other), width: W, height: H },
}, { planar_out: { shape: [W, H, 3] }, interleaved_out: { shape: [3, W, H] }, grey_out: { shape: [W, H] },
  level_out: { shape: [W, H] } });
const run2 = Object.fromEntries(Object.entries(got2).map(([k, v]) => [k, Array.from(v.data)]));

// Errors: each names the culprit and what to pass.
const errors = {};
const attempt = async (name, f) => {
  try { await f(); errors[name] = null; } catch (e) { errors[name] = `${e.name}: ${e.message}`; }
};
const plain = { planar: { data: new Uint8Array(W * H * 3), shape: [W, H, 3] },
  interleaved: { data: new Uint8Array(W * H * 3), shape: [3, W, H] },
  grey: { data: new Uint8Array(W * H), shape: [W, H] }, level: { data: new Float32Array(W * H), shape: [W, H] } };
const shapes = { planar_out: { shape: [W, H, 3] }, interleaved_out: { shape: [3, W, H] },
  grey_out: { shape: [W, H] }, level_out: { shape: [W, H] } };
await attempt('floatForUint8', () => p.run({ ...plain, grey: texture('r32float', null, 4) }, shapes));
await attempt('noBinding', () => p.run({ ...plain, planar: d.createTexture({ size: [W, H],
  format: 'rgba8unorm', usage: U.COPY_DST }) }, shapes));
await attempt('wrongShape', () => p.run({ ...plain, planar: { data: texture('rgba8unorm', rgba, 4),
  shape: [W + 1, H, 3] } }, shapes));
await attempt('singleForColour', () => p.run({ ...plain, planar: texture('r8unorm', grey, 1) }, shapes));
await attempt('targetSize', () => p.run(plain, { ...shapes, grey_out: { shape: [W, H],
  data: d.createTexture({ size: [W + 2, H], format: 'r8unorm', usage: U.RENDER_ATTACHMENT }) } }));
// A texture of another device: refused by WebGPU, checked on its first run.
// (dawn.node frees an instance once its GPU object is collected, under the devices made from
// it: a crash or a hang at the next call. The GPU object is kept to the end.)
const otherGpu = createGpu([]);
globalThis.keptGpu = otherGpu;
const otherDevice = await (await otherGpu.requestAdapter()).requestDevice();
const foreign = otherDevice.createTexture({ size: [W, H], format: 'rgba8unorm',
  usage: U.TEXTURE_BINDING | U.COPY_DST });
await attempt('otherDevice', () => p.run({ ...plain, planar: foreign }, shapes));
await attempt('otherDeviceTarget', () => p.run(plain, { ...shapes, planar_out: { shape: [W, H, 3],
  data: otherDevice.createTexture({ size: [W, H], format: 'rgba8unorm', usage: U.RENDER_ATTACHMENT }) } }));
const cpu = await create({ variant: 'simd' });
await attempt('cpuTexture', () => cpu.run({ ...plain, planar: texture('rgba8unorm', rgba, 4) }, shapes));
await attempt('cpuImageData', () => cpu.run({ ...plain,
  grey: { data: new Uint8ClampedArray(other), width: W, height: H } }, shapes));
await attempt('cpuTarget', () => cpu.run(plain, { ...shapes, grey_out: { shape: [W, H],
  data: texture('r8unorm', null, 1) } }));
// p still runs after the failed calls.
await attempt('afterErrors', () => p.run(plain, shapes));
// The unpack kernels at sizes the runs above do not have (w * h a multiple of 4: planar
// uint8 a kernel invocation per 4 pixels), through readImage: what came back, against the
// texture's bytes put in each layout here. 0 mismatches each.
const { readImage } = await import(new URL('./runtime/gpu_images.js', index));
const unpacked = {};
for (const [w, h] of [[12, 5], [13, 5], [3, 4]]) {
  const bytes = Uint8Array.from({ length: w * h * 4 }, (_, i) => (i * 59 + 5) % 256);
  const t = d.createTexture({ size: [w, h], format: 'rgba8unorm', usage: U.TEXTURE_BINDING | U.COPY_DST });
  d.queue.writeTexture({ texture: t }, bytes, { bytesPerRow: w * 4 }, [w, h]);
  for (const [layout, shape, at] of [['planar', [w, h, 3], (x, y, c) => c * w * h + y * w + x],
    ['interleaved', [3, w, h], (x, y, c) => (y * w + x) * 3 + c]]) {
    const { data } = await readImage(d, t, { type: 'uint8', dimensions: 3, shape });
    let bad = 0;
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) for (let c = 0; c < 3; c++) {
      if (data[at(x, y, c)] !== bytes[(y * w + x) * 4 + c]) bad++;
    }
    unpacked[`${layout} ${w}x${h}`] = bad;
  }
}
// Exit once the JSON is written: stdout to a pipe is asynchronous, and exit() could cut it.
process.stdout.write(`${JSON.stringify({ rgba: list(rgba), other: list(other), grey: list(grey),
  level: Array.from(level), run1, run1b, run2, run3, direct, errors, unpacked })}\n`, () => process.exit(0));
