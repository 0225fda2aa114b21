// The demos from texture to texture against GPUBuffer to GPUBuffer on the webgpu variant
// (issue 30's goals: the local Laplacian at 4096x4096 within 1.2x of GPUBuffers; every demo at
// 3840x2160 texture to texture under 2 ms on the H200):
//   node benchmarks/gpu_images.mjs BUILD_DIR [--sizes 3840x2160,4096x4096] [--runs 30] [--rounds 2]
//     [--demos unsharp,local_laplacian,bilateral_grid] [--render]
// BUILD_DIR holds the demos' packages (webgpu variant: unsharp, local_laplacian, bilateral_grid,
// as benchmarks/gpu_io.py builds them). A colour demo reads an rgba8unorm texture (unpacked to
// planar x, y, c) and draws into one; the grey bilateral grid r8unorm. Each figure is the mean
// of `runs` awaited runs, the queue drained at the end, per round. dawn.node is
// HL_WEBGPU_NODE_BINDINGS, else node_modules/webgpu's. Prints JSON (a summary on stderr).
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? fallback : argv[i + 1];
};
const build = path.resolve(argv[0]);
const sizes = option('sizes', '3840x2160,4096x4096').split(',').map((s) => s.split('x').map(Number));
const runs = Number(option('runs', '30'));
const rounds = Number(option('rounds', '2'));
const demos = option('demos', 'unsharp,local_laplacian,bilateral_grid').split(',');
const SCALARS = { unsharp: { amount: 1.5 }, local_laplacian: { alpha: 1.5, beta: 1.0 },
  bilateral_grid: { r_sigma: 0.1 } };

const require = createRequire(import.meta.url);
const dawn = process.env.HL_WEBGPU_NODE_BINDINGS || path.join(path.dirname(
  require.resolve('webgpu/package.json')), 'dist', `${process.platform}-${process.arch}`, 'dawn.node');
const gpu = require(dawn).create([]);
const T = { COPY_DST: 0x2, TEXTURE_BINDING: 0x4, STORAGE_BINDING: 0x8, RENDER_ATTACHMENT: 0x10 };
const B = { STORAGE: 0x80, COPY_DST: 0x8, COPY_SRC: 0x4 };

async function mean(p, run) {
  await run();
  await p.device.queue.onSubmittedWorkDone();
  const t = performance.now();
  for (let i = 0; i < runs; i++) await run();
  await p.device.queue.onSubmittedWorkDone();
  return (performance.now() - t) / runs;
}

const results = [];
for (const name of demos) {
  const { create } = await import(pathToFileURL(path.join(build, name, 'index.js')));
  const p = await create({ variant: 'webgpu', gpu, allowSoftwareGpu: true });
  const d = p.device;
  const grey = p.meta.arguments.find((a) => a.name === 'input').dimensions === 2;
  for (const [w, h] of sizes) {
    const format = grey ? 'r8unorm' : 'rgba8unorm';
    const bpp = grey ? 1 : 4;
    const source = d.createTexture({ size: [w, h], format, usage: T.TEXTURE_BINDING | T.COPY_DST });
    const pixels = new Uint8Array(w * h * bpp);
    for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 2654435761) >>> 24;
    d.queue.writeTexture({ texture: source }, pixels, { bytesPerRow: w * bpp }, [w, h]);
    // rgba8unorm is storable: packed by a compute kernel; r8unorm (storable nowhere in core
    // WebGPU) by a kernel writing bytes copied in (COPY_DST), a render pass with --render.
    const target = d.createTexture({ size: [w, h], format,
      usage: T.RENDER_ATTACHMENT | T.TEXTURE_BINDING | (grey ? 0 : T.STORAGE_BINDING)
        | (argv.includes('--render') ? 0 : T.COPY_DST) });
    const shape = grey ? [w, h] : [w, h, 3];
    const bytes = Math.ceil((w * h * (grey ? 1 : 3)) / 4) * 4;
    const usage = B.STORAGE | B.COPY_DST | B.COPY_SRC;
    const inBuffer = d.createBuffer({ size: bytes, usage });
    // The GPUBuffer input holds the pixels the texture's runs read (some demos' kernels run
    // faster on zeros: the bilateral grid's slice gathers from the grid by pixel value).
    const { readImage } = await import(pathToFileURL(path.join(build, name, 'runtime', 'gpu_images.js')));
    const arg = p.meta.arguments.find((a) => a.name === 'input');
    const { data: unpacked } = await readImage(d, source, { type: arg.type, dimensions: arg.dimensions, shape });
    d.queue.writeBuffer(inBuffer, 0, unpacked.buffer, unpacked.byteOffset, Math.floor(unpacked.byteLength / 4) * 4);
    const outBuffer = d.createBuffer({ size: bytes, usage });
    const scalars = SCALARS[name] ?? {};
    const row = { demo: name, size: `${w}x${h}`, texturesMs: [], buffersMs: [], textureInMs: [],
      textureOutMs: [] };
    for (let r = 0; r < rounds; r++) {
      row.texturesMs.push(await mean(p, () => p.run({ input: source, ...scalars },
        { shape, data: target })));
      row.buffersMs.push(await mean(p, () => p.run({ input: { data: inBuffer, shape }, ...scalars },
        { shape, data: outBuffer })));
      row.textureInMs.push(await mean(p, () => p.run({ input: source, ...scalars },
        { shape, data: outBuffer })));
      row.textureOutMs.push(await mean(p, () => p.run({ input: { data: inBuffer, shape }, ...scalars },
        { shape, data: target })));
    }
    console.error(`${name} ${row.size}: textures ${row.texturesMs.map((t) => t.toFixed(3)).join(', ')} ms; `
      + `GPUBuffers ${row.buffersMs.map((t) => t.toFixed(3)).join(', ')} ms; texture in only `
      + `${row.textureInMs.map((t) => t.toFixed(3)).join(', ')}, out only `
      + `${row.textureOutMs.map((t) => t.toFixed(3)).join(', ')} ms`);
    results.push(row);
    source.destroy();
    target.destroy();
    inBuffer.destroy();
    outBuffer.destroy();
  }
  await p.dispose();
}
console.log(JSON.stringify({ adapter: (await (await gpu.requestAdapter()).info), runs, results }));
process.exit(0);
