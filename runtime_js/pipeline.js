// A webhal pipeline built into an npm package, run from JavaScript: chooses the variant this
// engine runs, loads its wasm once, and calls the entry function with halide_buffer_t
// arguments (docs/abi.md). Every check names the argument at fault; a failed call leaves the
// pipeline usable for the next one.

import { ERROR_CODE } from './abi.js';
import { readProfile, withGpu } from './profile.js';
import { ARRAYS, checkBuffer, checkScalar, checkShape, parseType, writeBuffer } from './buffers.js';
import {
  BUFFER_USAGE, FRESH_MIN_BYTES, FreshArray, SoftwareAdapterError, WebGPURuntime, adapterInfo,
  isGpuBuffer, requestDevice, softwareAdapter,
} from './webgpu.js';
import { GpuImages } from './gpu_images.js';

// The smallest module using a SIMD128 instruction: validates where wasm SIMD is on.
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1,
  0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

// The webgpu runtime's bindings between runs: none.
const NO_BUFFERS = new Map();

const ERROR_NAMES = Object.fromEntries(Object.entries(ERROR_CODE).map(([k, v]) => [v, k]));

/** Why a variant cannot run here, or null when it can. */
export function unsupported(variant) {
  if (typeof WebAssembly !== 'object') return 'this JavaScript engine has no WebAssembly';
  if (variant.features.includes('wasm_simd128') && !WebAssembly.validate(SIMD_PROBE)) {
    return 'this engine has no WebAssembly SIMD';
  }
  if (variant.features.includes('wasm_threads')) {
    if (globalThis.crossOriginIsolated === false) {
      return 'the page is not crossOriginIsolated, so it has no SharedArrayBuffer (serve it '
        + 'with the headers Cross-Origin-Opener-Policy: same-origin and '
        + 'Cross-Origin-Embedder-Policy: require-corp, as `webhal serve` does)';
    }
    if (typeof SharedArrayBuffer !== 'function') return 'this engine has no SharedArrayBuffer';
    if (variant.embedded && typeof Worker !== 'function') {
      return 'there is no Worker here: the inline entry starts its pthreads as module workers '
        + 'from blob: URLs, as browsers do (in Node, import the package itself, index.js)';
    }
  }
  return null;
}

async function readBytes(url, missing) {
  if (url.protocol === 'file:') {
    // Node only; a name bundlers do not try to resolve for browsers.
    const name = 'node:fs/promises';
    const fs = await import(/* @vite-ignore */ /* webpackIgnore: true */ name);
    return fs.readFile(url);
  }
  const response = await fetch(url);
  if (!response.ok) throw missing(`the server answered ${response.status} ${response.statusText}`.trim());
  return new Uint8Array(await response.arrayBuffer());
}

const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];

// What came back for a file, in a few words: "an HTML page ("<!doctype html><html..."), a
// dev server's or host's answer for a missing file" or its first bytes.
function describeBytes(bytes) {
  const head = new TextDecoder().decode(bytes.subarray(0, 40)).replace(/\s+/g, ' ');
  if (/^\s*</.test(head)) {
    return `an HTML page (${JSON.stringify(head)}...), a server's answer for a file it does not `
      + 'have (a dev server\'s fallback page)';
  }
  const hex = Array.from(bytes.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join(' ');
  return `${bytes.length} bytes starting ${hex || '(none)'}`;
}

// A variant's file (key: wasm, wgsl, manifest) as bytes, or as text: from the package's
// inline entry (opts.assetBase aside), else by URL. A file that is not there, or not what it
// should be, is an error that names it, what came back and the fix.
async function readAsset(meta, variant, key, opts, asText = false) {
  const embedded = variant.embedded?.[key];
  if (embedded !== undefined && (opts.assetBase === undefined || opts.assetBase === null)) {
    if (asText) return embedded;
    return Uint8Array.from(atob(embedded), (c) => c.charCodeAt(0));
  }
  const url = assetUrl(meta, variant, key, opts);
  const fix = opts.assetBase === undefined || opts.assetBase === null
    ? 'Serve the package\'s folder and name its URL with create({ assetBase }), or import '
      + `"${meta.name}/inline", which holds its files (see the package README for your bundler)`
    : `create({ assetBase: ${JSON.stringify(String(opts.assetBase))} }) must name the URL of a `
      + 'copy of the package\'s folder';
  const missing = (got) => new Error(`${meta.name}: the ${variant.name} variant's `
    + `${variant.files[key]} is not at ${url}: ${got}. ${fix}`);
  const bytes = await readBytes(url, missing);
  if (key === 'wasm' && !WASM_MAGIC.every((b, i) => bytes[i] === b)) {
    throw missing(`that URL gave ${describeBytes(bytes)}, not WebAssembly`);
  }
  if (!asText) return bytes;
  const text = new TextDecoder().decode(bytes);
  if (/^\s*</.test(text)) throw missing(`that URL gave ${describeBytes(bytes)}`);
  return text;
}

// A GPU variant's device and compiled kernels, or the reason it cannot run here.
async function prepareGpu(meta, variant, opts, hardwareOnly = false) {
  const [wgsl, manifest] = await Promise.all([readAsset(meta, variant, 'wgsl', opts, true),
    readAsset(meta, variant, 'manifest', opts, true).then(JSON.parse)]);
  // A profiled variant times its kernels with timestamp queries where the adapter has them;
  // 'bgra8unorm-storage' lets gpu_images.js pack outputs into bgra8unorm canvases by a kernel.
  const profile = variant.features.includes('profile');
  const device = await requestDevice(opts, manifest.features,
    { hardwareOnly, optional: [...(profile ? ['timestamp-query'] : []), 'bgra8unorm-storage'] });
  const outputs = meta.arguments.filter((a) => a.output).map((a) => a.name);
  return WebGPURuntime.create(device, wgsl, manifest, outputs, { profile });
}

// The adapter a GPU variant runs on, in a few words: "hardware adapter NVIDIA H200 (nvidia
// hopper)" or softwareAdapter's.
function adapterWords(device) {
  const info = adapterInfo(device) ?? {};
  const software = softwareAdapter(info);
  if (software) return software;
  const name = info.description || info.device;
  const where = [info.vendor, info.architecture].filter(Boolean).join(' ');
  return `hardware adapter${name ? ` ${name}` : ''}${where && where !== name ? ` (${where})` : ''}`;
}

// Why a variant that runs here was taken, for p.reason.
function chosenBecause(variant, opts, gpu) {
  const on = gpu ? ` on ${adapterWords(gpu.device)}` : '';
  if (opts.variant !== undefined) return `forced with create({ variant: '${variant.name}' })${on}`;
  if (gpu && opts.device) return `the GPUDevice passed to create()${on}`;
  if (gpu && opts.allowSoftwareGpu) return `create({ allowSoftwareGpu: true })${on}`;
  if (gpu) return on.slice(4);
  if (variant.features.includes('wasm_threads')) {
    return 'SharedArrayBuffer available'
      + (globalThis.crossOriginIsolated ? ' (the page is cross-origin isolated)' : '');
  }
  if (variant.features.includes('wasm_simd128')) return 'WebAssembly SIMD available';
  return 'WebAssembly without SIMD';
}

/**
 * Load the pipeline described by `meta` (written by `webhal build` into index.js).
 * opts.variant forces a variant by name; otherwise the first in `meta.variants` that runs here
 * is taken (they are listed fastest first: WebGPU on a hardware adapter, then wasm threads
 * where SharedArrayBuffer is, then SIMD). A software or fallback WebGPU adapter (SwiftShader,
 * llvmpipe, WARP) runs kernels slower than the wasm variants, so the webgpu variant skips it
 * unless it is forced, opts.allowSoftwareGpu is true, or opts.device is given.
 * opts.gpu (a GPU object, as navigator.gpu or the npm package webgpu's create([])) or
 * opts.device (a GPUDevice of the user's) is where GPU variants run.
 * The pipeline's `reason` says which variants were skipped and why the one taken was.
 */
export async function create(meta, opts = {}) {
  const where = `${meta.name}: create`;
  const known = meta.variants.map((v) => v.name);
  const forced = opts.variant !== undefined;
  let candidates = meta.variants;
  if (forced) {
    candidates = meta.variants.filter((v) => v.name === opts.variant);
    if (!candidates.length) {
      throw new RangeError(`${where}: no variant ${JSON.stringify(opts.variant)}; this package `
        + `has ${known.join(', ')}`);
    }
  }
  const reasons = [];
  for (const variant of candidates) {
    const why = unsupported(variant);
    if (why) {
      reasons.push(`${variant.name}: ${why}`);
      if (variant.features.includes('wasm_threads') && !forced) {
        console.warn(`${where}: not using the ${variant.name} variant: ${why}`);
      }
      continue;
    }
    let gpu = null;
    if (variant.features.includes('webgpu')) {
      const hardwareOnly = !forced && !opts.allowSoftwareGpu && !opts.device;
      try {
        gpu = await prepareGpu(meta, variant, opts, hardwareOnly);
      } catch (e) {
        if (forced) throw new Error(`${where}: variant ${variant.name}: ${e.message}`);
        reasons.push(`${variant.name}: ${e instanceof SoftwareAdapterError ? `${e.message}, `
          + 'slower than the CPU variants (create({ variant: \'webgpu\' }) forces it)' : e.message}`);
        continue;
      }
    }
    const reason = [...reasons.map((r) => r.replace(/^(\w+): /, '$1 skipped: ')),
      `${variant.name}: ${chosenBecause(variant, opts, gpu)}`].join('; ');
    const pipeline = await load(meta, variant, gpu, gpu && (() => prepareGpu(meta, variant, opts)),
      opts);
    pipeline.reason = reason;
    return pipeline;
  }
  if (forced) throw new Error(`${where}: variant ${reasons[0]}`);
  throw new Error(`${where}: none of the variants ${known.join(', ')} runs here: ${reasons.join('; ')}`);
}

// Where a variant's file is. index.js names each with `new URL('./...', import.meta.url)`,
// which Vite and webpack rewrite to where they put the file; opts.assetBase (a URL of the
// package's folder, e.g. on a CDN) overrides that. Vite's dev server pre-bundles the package
// into node_modules/.vite/deps/, where those URLs lead nowhere: the files are then taken from
// the package's own folder, which the dev server serves.
function assetUrl(meta, variant, key, opts) {
  const base = packageBase(meta, variant, opts);
  return base ? new URL(variant.files[key], base) : variant[key];
}

const VITE_DEPS = /\/node_modules\/\.vite\/deps[^/]*\/[^?#]*([?#].*)?$/;

function packageBase(meta, variant, opts) {
  if (opts.assetBase !== undefined && opts.assetBase !== null) {
    const base = String(opts.assetBase);
    return new URL(base.endsWith('/') ? base : `${base}/`, globalThis.location?.href);
  }
  const href = variant.wasm?.href ?? '';  // none in the inline entry
  return VITE_DEPS.test(href) ? new URL(href.replace(VITE_DEPS, `/node_modules/${meta.name}/`)) : null;
}

// A module worker for one of the threads variant's pthreads, in a browser: the `new Worker(new
// URL(...), { type: 'module' })` of index.js (bundlers bundle what it names), or from the
// package's folder (see assetUrl); a cross-origin folder through a same-origin blob: that
// imports it (a worker must come from the page's origin).
function browserWorker(meta, variant, opts) {
  const base = packageBase(meta, variant, opts);
  if (!base && variant.embedded) {
    return new Worker(embeddedWorkerUrl(variant), { type: 'module', name: variant.workerName });
  }
  if (!base) return variant.worker();
  const url = new URL(variant.files.worker, base);
  const options = { type: 'module', name: variant.workerName };
  if (url.origin === globalThis.location?.origin) return new Worker(url, options);
  const source = new Blob([`import ${JSON.stringify(url.href)};`], { type: 'text/javascript' });
  return new Worker(URL.createObjectURL(source), options);
}

// The inline entry's threads variant: its module, and its pthread worker (which imports the
// module), from blob: URLs made once per page and kept, as the bundle's own code is.
const embeddedUrls = new WeakMap();

function embeddedFactoryUrl(variant) {
  let urls = embeddedUrls.get(variant);
  if (!urls) {
    const blob = (text) => URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
    const factory = blob(variant.embedded.factory);
    const { worker } = variant.embedded;
    urls = { factory,
      worker: worker === null ? factory
        : blob(`import webhalFactory from ${JSON.stringify(factory)};\n${worker}`) };
    embeddedUrls.set(variant, urls);
  }
  return urls.factory;
}

function embeddedWorkerUrl(variant) {
  embeddedFactoryUrl(variant);
  return embeddedUrls.get(variant).worker;
}

async function factoryOf(variant) {
  if (variant.factory) return variant.factory;
  const url = embeddedFactoryUrl(variant);
  return (await import(/* @vite-ignore */ /* webpackIgnore: true */ url)).default;
}

// The threads a pipeline runs on: opts.threads, else one per core.
async function threadCount(where, variant, opts, node) {
  if (opts.threads !== undefined) {
    if (!Number.isInteger(opts.threads) || opts.threads < 1 || opts.threads > 1024) {
      throw new RangeError(`${where}: threads must be a whole number from 1 to 1024, not `
        + `${String(opts.threads)}`);
    }
    return opts.threads;
  }
  if (node) {
    const name = 'node:os';
    const os = await import(/* @vite-ignore */ /* webpackIgnore: true */ name);
    return os.availableParallelism?.() ?? os.cpus().length;
  }
  return globalThis.navigator?.hardwareConcurrency || 4;
}

// The threads variant's module options: its pool of workers (how many, and how they are
// made), and in Node what Emscripten's code needs and an ES module lacks (see
// templates/emcc_pre.js.j2).
async function threadOptions(meta, variant, opts, threads) {
  const node = variant.wasm?.protocol === 'file:';
  // The caller is one of the threads, so the pool has threads - 1 workers, but at least one:
  // Emscripten 3.1.6 with a pool of 0 never resolves its module (it waits for every pool
  // worker to load the wasm, and counts down to 0 only from 1), so create({ threads: 1 })
  // hung. The one worker sits idle: halide_set_num_threads(1) keeps the work on the caller.
  const options = { webhalPoolSize: Math.max(1, threads - 1) };
  if (!node) {
    options.webhalWorker = () => browserWorker(meta, variant, opts);
    return options;
  }
  const names = ['node:module', 'node:path', 'node:url', 'node:worker_threads'];
  const [{ createRequire }, path, { fileURLToPath }, { Worker }] = await Promise.all(
    names.map((name) => import(/* @vite-ignore */ /* webpackIgnore: true */ name)));
  Object.assign(options, { webhalRequire: createRequire(variant.wasm),
    webhalDirname: path.dirname(fileURLToPath(variant.wasm)),
    webhalWorker: (url, workerOptions) => new Worker(url, workerOptions) });
  if (variant.files.nodeWorker) {
    // Emscripten's own classic worker script, beside the .wasm (Node's Worker takes a path).
    const script = fileURLToPath(new URL(variant.files.nodeWorker.split('/').pop(), variant.wasm));
    options.locateFile = (file) => (file.endsWith('.worker.js') ? script : file);
  } else {
    // Later Emscriptens run the module itself in each worker, found by this path.
    const name = variant.files.worker.split('/').pop();
    options.mainScriptUrlOrBlob = fileURLToPath(new URL(name, variant.wasm));
  }
  return options;
}

async function load(meta, variant, gpu, reprepare, opts = {}) {
  const where = `${meta.name}: create`;
  const threaded = variant.features.includes('wasm_threads');
  const node = variant.wasm?.protocol === 'file:';
  if (!threaded && opts.threads !== undefined && opts.threads !== 1) {
    throw new RangeError(`${where}: threads: ${String(opts.threads)} needs the threads variant; `
      + `the ${variant.name} variant runs on one thread`);
  }
  const threads = threaded ? await threadCount(where, variant, opts, node) : 1;
  const [wasmBinary, options, factory] = await Promise.all([readAsset(meta, variant, 'wasm', opts),
    threaded ? threadOptions(meta, variant, opts, threads) : {}, factoryOf(variant)]);
  const messages = [];
  let printed = 0;  // lines the wasm printed (a run that prints is not replayed)
  // Emscripten's Node code sets a global Worker (worker_threads'): put back what was there.
  const hadWorker = Object.getOwnPropertyDescriptor(globalThis, 'Worker');
  let module;
  try {
    module = await factory({
      ...options,
      wasmBinary,
      webhalGpu: gpu,
      print: (text) => {
        printed++;
        console.log(text);
      },
      printErr: (text) => messages.push(text),
    });
  } finally {
    if (threaded && node) {
      if (hadWorker) Object.defineProperty(globalThis, 'Worker', hadWorker);
      else delete globalThis.Worker;
    }
  }
  if (threaded) module._halide_set_num_threads(threads);
  if (gpu) gpu.heap = () => heap(module);
  releaseWorkers(module);
  const pipeline = new Pipeline(meta, variant, module, messages, gpu, reprepare);
  pipeline.threads = threads;
  pipeline._printed = () => printed;
  return pipeline;
}

// Node: the threads variant's workers (started with the module, or by the pipeline's thread
// pool) must not keep the process alive once the caller is done.
function releaseWorkers(module) {
  const pthreads = module.PThread;
  if (!pthreads) return;
  for (const worker of [...pthreads.unusedWorkers, ...pthreads.runningWorkers]) worker.unref?.();
}

// The wasm memory as bytes. Shared memory (threads) may have grown on a worker thread, which
// leaves the main thread's HEAPU8 short: a view is made anew then.
function heap(module) {
  const buffer = module.wasmMemory?.buffer;
  return buffer && buffer.byteLength !== module.HEAPU8.length ? new Uint8Array(buffer) : module.HEAPU8;
}

/** A pipeline used after p.dispose(). */
export class PipelineDisposedError extends Error {
  constructor(message) {
    super(message);
    this.name = 'PipelineDisposedError';
  }
}

const disposedError = (where) => new PipelineDisposedError(`${where}: the pipeline was `
  + 'disposed (p.dispose()); create() a new one');

class Pipeline {
  constructor(meta, variant, module, messages, gpu, reprepare) {
    this.meta = meta;
    this._gpu = gpu;
    this._reprepare = reprepare;
    this._last = Promise.resolve();
    this._inFlight = 0;  // runs called and not yet settled
    this._settled = () => { this._inFlight--; };
    this.variant = variant.name;
    this.target = variant.target;
    this._module = module;
    this._messages = messages;
    this._call = module.webhalCall;  // set by webhal's --pre-js (templates/emcc_pre.js.j2)
    // Variants whose entry never suspends also have a call that returns its result at once
    // (packages built before it have only the promise).
    this._callNow = module.webhalCallNow ?? null;
    this._deviceArguments = new Set(variant.deviceArguments ?? []);
    this._acceptedBuffers = new WeakSet();  // GPUBuffers a run has used without an error
    this._inputs = meta.arguments.filter((a) => !a.output);
    this._outputs = meta.arguments.filter((a) => a.output);
    this._printed = () => 0;
    // Runs on GPUBuffers alone may be replayed (webgpu.js: the same arguments again submit the
    // dispatches the last such run recorded, without the wasm), unless C code is linked in
    // (its state is not the arguments'; a GPU variant with C code has webgpu.h's device) or
    // the variant is profiled (each run is timed).
    this._replays = Boolean(gpu && !gpu.profiler && !('preinitializedWebGPUDevice' in module));
  }

  /**
   * Run the pipeline. `inputs` maps each input name to { data, shape } (buffers) or a number
   * (scalars); `outputs` is { shape } for a single output, or maps each output name to one.
   * Returns { data, shape }, or an object of them keyed by output name when there are several.
   * An output given as { shape, data } with `data` a typed array of its type and size is
   * written in place (that array is the result's data).
   * On the webgpu variant, `data` of an input, or of an output's { shape, data }, may be a
   * GPUBuffer of `p.device` (usage STORAGE) for arguments only kernels touch: the pipeline then
   * reads or writes it in place, and an output's result is that GPUBuffer.
   */
  run(inputs, outputs) {
    if (this._disposed) return Promise.reject(disposedError(`${this.meta.name}.run`));
    // The same GPUBuffers, shapes and scalars as a run before, none in flight: its replay.
    if (!this._inFlight && this._gpu?.replays.length) {
      const replayed = this._replay(inputs, outputs);
      if (replayed) return Promise.resolve(replayed);
    }
    // One call at a time: a GPU variant reads its outputs back after the entry returns, and
    // the next call must not rebind its buffers before that. With none in flight, the call
    // starts now (a turn of the microtask queue less).
    const result = this._inFlight
      ? this._last.then(() => this._run(inputs, outputs)) : this._run(inputs, outputs);
    this._inFlight++;
    this._last = result.then(this._settled, this._settled);
    return result;
  }

  /**
   * Release what the pipeline holds: the threads variant's workers, the wasm module and its
   * memory, the webgpu variant's GPU buffers and pipelines (and its GPUDevice, unless it was
   * passed to create()). A run already started finishes first; later runs reject with a
   * PipelineDisposedError. Returns a promise of that; calling it again does nothing more.
   * `using p = await create()` (Symbol.dispose) and `await using` (Symbol.asyncDispose) call it.
   */
  dispose() {
    if (!this._disposed) {
      this._disposed = true;
      this._released = this._last.then(() => this._release());
    }
    return this._released;
  }

  _release() {
    // The workers end at once (Emscripten's terminateAllThreads would first free each
    // thread's data in wasm memory, which a worker that has not yet started its thread
    // then reads); the memory goes with the module.
    const pthreads = this._module.PThread;
    if (pthreads) {
      for (const worker of [...pthreads.unusedWorkers, ...pthreads.runningWorkers]) {
        worker.onmessage = worker.onerror = null;
        worker.terminate();
      }
      pthreads.unusedWorkers.length = 0;
      pthreads.runningWorkers.length = 0;
    }
    this._images?.destroy();
    this._gpu?.destroy();
    this._gpu = null;
    this._reprepare = null;
    this._module = null;
    this._call = null;
    this._callNow = null;
  }

  /** Whether dispose() was called. */
  get disposed() {
    return Boolean(this._disposed);
  }

  /** `using p = await create()` disposes p at the end of the block. */
  [Symbol.dispose ?? Symbol.for('Symbol.dispose')]() {
    this.dispose();
  }

  /** `await using p = await create()` disposes p and waits for it at the end of the block. */
  [Symbol.asyncDispose ?? Symbol.for('Symbol.asyncDispose')]() {
    return this.dispose();
  }

  /** The GPUDevice a GPU variant runs on (null for the wasm variants). */
  get device() {
    return this._gpu?.device ?? null;
  }

  /**
   * The variant's Emscripten module: C functions linked with `webhal build --c-source` and
   * `--export NAME` are `p.module._NAME`.
   */
  get module() {
    return this._module;
  }

  /** The WebGPU adapter a GPU variant runs on ({ vendor, architecture, ... }), else null. */
  get adapterInfo() {
    return adapterInfo(this.device);
  }

  /**
   * The profiler's report, for a package built for a target with `profile` (else null):
   * { text, pipelines } with the text in Halide's format and, per pipeline, { name, runs,
   * totalMs, perRunMs, threads, sections: { funcs: [{ name, ms, percent }] } } over the runs
   * since create() or the last profile({ reset: true }). The wasm code's time per Func, on
   * performance.now()'s clock (coarsened by browsers that are not cross-origin isolated).
   * On the webgpu variant also the sections "gpu kernels" (by timestamp queries where the
   * device has 'timestamp-query', else by the wall clock; `kernelTiming` says which),
   * "buffer copies to device" and "buffer copies to host", and the wait for the GPU after the
   * wasm returns counts as overhead.
   */
  profile(opts = {}) {
    if (this._disposed) throw disposedError(`${this.meta.name}.profile`);
    const gpu = this._gpu?.profiler;
    const report = withGpu(readProfile(this._module, heap, Boolean(opts.reset)), gpu);
    if (opts.reset) gpu?.reset();
    return report;
  }

  // A run's arguments as a flat array (scalars; each buffer's GPUBuffer and shape), the key of
  // its replay; null unless every buffer argument is a GPUBuffer and the inputs are only the
  // pipeline's (else the run takes the checks of _run).
  _replayKey(inputs, outputs) {
    if (!this._replays || inputs === null || typeof inputs !== 'object'
      || outputs === null || typeof outputs !== 'object') return null;
    const names = this._inputNames ??= new Set(this._inputs.map((a) => a.name));
    for (const name in inputs) if (Object.hasOwn(inputs, name) && !names.has(name)) return null;
    const single = this._outputs.length === 1;
    const key = [];
    for (const arg of this.meta.arguments) {
      const value = arg.output ? (single ? outputs : outputs[arg.name]) : inputs[arg.name];
      if (arg.kind === 'scalar') {
        key.push(value);
        continue;
      }
      if (!value || !isGpuBuffer(value.data) || !Array.isArray(value.shape)) return null;
      key.push(value.data, value.shape.length, ...value.shape);
    }
    return key;
  }

  // A replay of an earlier run with these arguments, submitted: its result, or null.
  _replay(inputs, outputs) {
    if (this._images?.lateError || this._gpu.lost) return null;
    const key = this._replayKey(inputs, outputs);
    if (!key || !this._gpu.replay(key)) return null;
    const single = this._outputs.length === 1;
    const out = {};
    for (const arg of this._outputs) {
      const spec = single ? outputs : outputs[arg.name];
      out[arg.name] = { data: spec.data, shape: [...spec.shape] };
    }
    return single ? out[this._outputs[0].name] : out;
  }

  async _run(inputs, outputs) {
    const where = `${this.meta.name}.run`;
    if (this._gpu?.lost) await this._recover(where);
    const key = this._replayKey(inputs, outputs);
    const printed = this._printed();
    // Image sources in, canvases and textures out (gpu_images.js): GPUBuffers from here on.
    let images = (this._images ??= new GpuImages()).stage(where, this, inputs, outputs);
    if (images) {
      images = await images;
      ({ inputs, outputs } = images);
    }
    let values;
    try {
      values = this._check(where, inputs, outputs);
    } catch (e) {
      images?.settle();
      throw e;
    }
    const m = this._module;
    const allocations = [];
    const alloc = (bytes, what) => {
      const at = m._malloc(Math.max(bytes, 1));
      if (!at) throw new RangeError(`${where}: out of wasm memory for ${what} (${bytes} bytes)`);
      allocations.push(at);
      return at;
    };
    const bound = values.filter(([arg, value]) => arg.kind !== 'scalar' && isGpuBuffer(value.data));
    // Typed arrays of arguments only kernels touch skip wasm memory on the webgpu variant: an
    // input is written to the GPU from the caller's array, an output read back into the
    // caller's array (or a new one).
    const direct = this._gpu ? values.filter(([arg, value]) => arg.kind !== 'scalar'
      && this._deviceArguments.has(arg.name)
      && (ArrayBuffer.isView(value.data) || (arg.output && value.data === undefined))) : [];
    // A new output array of many bytes is made (its pages touched) while the run goes on.
    for (const [arg, value] of direct) {
      if (value.data !== undefined) continue;
      const bytes = value.count * ARRAYS[arg.type].BYTES_PER_ELEMENT;
      value.data = bytes >= FRESH_MIN_BYTES ? new FreshArray(bytes)
        : new ARRAYS[arg.type](value.count);
    }
    const inPlace = new Set(direct.map(([arg]) => arg.name));
    // WebGPU reports a GPUBuffer it cannot use (another device's, say) as a validation error,
    // which an error scope catches. Waiting for it costs more than the rest of a small run on
    // GPUBuffers, so only GPUBuffers no run has used yet are checked: one the caller destroys
    // later is reported by the device as an uncaptured error (its console, `uncapturederror`).
    let scope = bound.some(([, value]) => !this._acceptedBuffers.has(value.data));
    try {
      this._gpu?.bind(new Map(bound.map(([arg, value]) => [arg.name, value.data])),
        new Map(direct.map(([arg, value]) => [arg.name, value.data])));
      if (scope) this._gpu.device.pushErrorScope('validation');
      // The image inputs' unpack kernels, first in the run's submission.
      images?.encode(this._gpu);
      const args = [];
      const results = [];
      for (const [arg, value] of values) {
        if (arg.kind === 'scalar') {
          args.push(value);
          continue;
        }
        const bytes = value.count * parseType(arg.type).bytes;
        // GPUBuffers too get host memory: halide_buffer_t needs it, though nothing reads it.
        const host = alloc(bytes, arg.name);
        const onDevice = isGpuBuffer(value.data);
        if (!arg.output && !onDevice && !inPlace.has(arg.name)) {
          heap(m).set(new Uint8Array(value.data.buffer, value.data.byteOffset, bytes), host);
        }
        const struct = writeBuffer(m, arg, value.shape, host, !arg.output, () => heap(m));
        allocations.push(struct);
        args.push(struct);
        if (arg.output) {
          results.push({ arg, host, bytes, shape: value.shape, device: onDevice && value.data,
            array: ArrayBuffer.isView(value.data) && value.data, direct: inPlace.has(arg.name),
            fresh: value.data instanceof FreshArray && value.data });
        }
      }
      this._messages.length = 0;
      const code = this._callNow ? this._callNow(args) : await this._call(args);
      if (code !== 0) {
        const said = this._gpu?.takeError()?.message
          ?? this._messages.join('\n').replace(/^Error: /, '').trim();
        const error = new Error(`${where}: ${said
          || 'the pipeline failed'} (${ERROR_NAMES[code] ?? 'error'} ${code})`);
        error.code = code;
        throw error;
      }
      // The image outputs' pack kernels go into the same submission.
      // (A promise only when something is read back or timed.)
      const finished = this._gpu?.finish(images?.pack);
      if (finished) await finished;
      if (scope) {
        scope = false;
        const error = await this._gpu.device.popErrorScope();
        if (error) {
          throw new Error(`${where}: WebGPU rejected the GPUBuffers passed for `
            + `${bound.map(([arg]) => arg.name).join(', ')} (they must be buffers of p.device): `
            + error.message);
        }
        for (const [, value] of bound) this._acceptedBuffers.add(value.data);
      }
      const out = {};
      for (const { arg, host, bytes, shape, device, array, direct: readBack, fresh } of results) {
        if (device) {
          out[arg.name] = { data: device, shape: [...shape] };
          continue;
        }
        const Array_ = ARRAYS[arg.type];
        const data = array || (fresh ? new Array_(fresh.buffer ?? new ArrayBuffer(bytes))
          : new Array_(bytes / Array_.BYTES_PER_ELEMENT));
        // The webgpu runtime read it back into `array` itself (finish()).
        if (!readBack) {
          new Uint8Array(data.buffer, data.byteOffset, bytes).set(heap(m).subarray(host, host + bytes));
        }
        out[arg.name] = { data, shape: [...shape] };
      }
      if (images) {
        images.settle();
        await images.present(out);
      }
      // A run on GPUBuffers that printed nothing leaves its replay for the same arguments.
      if (key && !images && this._printed() === printed && !this._messages.length) {
        this._gpu.keep(key);
      }
      return this._outputs.length === 1 ? out[this._outputs[0].name] : out;
    } finally {
      if (scope) await this._gpu.device.popErrorScope().catch(() => {});
      images?.settle();
      this._gpu?.bind(NO_BUFFERS);
      releaseWorkers(m);
      for (const at of allocations) m._free(at);
    }
  }

  // A lost device: one this runtime asked for is asked for again (the call that saw the loss
  // failed, naming it); a device the user handed in cannot be replaced here.
  async _recover(where) {
    const lost = this._gpu.lost;
    if (this._gpu.userDevice || !this._reprepare) {
      throw new Error(`${where}: the GPUDevice passed to create() was lost (${lost}); create() `
        + 'the pipeline again with a new device');
    }
    const gpu = await this._reprepare();
    gpu.heap = () => heap(this._module);
    this._module.webhalGpu = gpu;
    // C code on webgpu.h (--c-source) gets the new device from emscripten_webgpu_get_device().
    if ('preinitializedWebGPUDevice' in this._module) {
      this._module.preinitializedWebGPUDevice = gpu.device;
    }
    this._gpu = gpu;
    this._acceptedBuffers = new WeakSet();  // they were checked against the lost device
  }

  _check(where, inputs, outputs) {
    if (inputs === null || typeof inputs !== 'object') {
      throw new TypeError(`${where}: the first argument must be an object of the inputs `
        + `(${this._inputs.map((a) => a.name).join(', ')})`);
    }
    const names = this._inputNames ??= new Set(this._inputs.map((a) => a.name));
    for (const key in inputs) {
      if (!Object.hasOwn(inputs, key)) continue;
      if (!names.has(key)) {
        throw new TypeError(`${where}: unknown input ${JSON.stringify(key)}; the inputs are `
          + `${[...names].join(', ')}`);
      }
    }
    const single = this._outputs.length === 1;
    const specs = single ? { [this._outputs[0].name]: outputs } : outputs;
    if (specs === null || typeof specs !== 'object') {
      throw new TypeError(`${where}: the second argument must give the output's shape: `
        + (single ? '{ shape: [...] }' : `{ ${this._outputs.map((a) => `${a.name}: { shape }`).join(', ')} }`));
    }
    const values = [];
    for (const arg of this.meta.arguments) {
      if (arg.output) {
        const spec = specs[arg.name];
        if (spec === undefined || spec === null || !('shape' in spec)) {
          throw new TypeError(`${where}: missing the shape of output ${arg.name}`);
        }
        const count = checkShape(where, arg, spec.shape);
        // A typed array of the caller's is written in place (on every variant).
        if (ArrayBuffer.isView(spec.data)) checkBuffer(where, arg, spec);
        else if (spec.data !== undefined) this._checkDeviceBuffer(where, arg, spec.data, count);
        values.push([arg, { shape: spec.shape, count, data: spec.data }]);
      } else if (!(arg.name in inputs)) {
        throw new TypeError(`${where}: missing input ${arg.name} (${arg.kind === 'scalar'
          ? arg.type : `${arg.type} buffer of ${arg.dimensions} dimensions`})`);
      } else if (arg.kind === 'scalar') {
        values.push([arg, checkScalar(where, arg, inputs[arg.name])]);
      } else {
        const value = inputs[arg.name];
        let count;
        if (isGpuBuffer(value?.data)) {
          count = checkShape(where, arg, value.shape);
          this._checkDeviceBuffer(where, arg, value.data, count);
        } else {
          count = checkBuffer(where, arg, value);
        }
        values.push([arg, { data: value.data, shape: value.shape, count }]);
      }
    }
    return values;
  }

  // A GPUBuffer of the caller's as an argument's data.
  _checkDeviceBuffer(where, arg, buffer, count) {
    const role = arg.output ? 'output' : 'input';
    if (!isGpuBuffer(buffer)) {
      throw new TypeError(`${where}: the data of output ${arg.name} must be a GPUBuffer or a `
        + `${ARRAYS[arg.type].name} to write in place when it is given (leave it out to get a `
        + 'new typed array back)');
    }
    if (!this._gpu) {
      throw new TypeError(`${where}: ${role} ${arg.name} is a GPUBuffer, which only the webgpu `
        + `variant takes; this pipeline runs the ${this.variant} variant`);
    }
    if (!this._deviceArguments.has(arg.name)) {
      throw new TypeError(`${where}: ${role} ${arg.name} cannot be a GPUBuffer: the pipeline's `
        + `CPU code ${arg.output ? 'writes' : 'reads'} it; pass a ${ARRAYS[arg.type].name}`);
    }
    const bytes = Math.ceil((count * parseType(arg.type).bytes) / 4) * 4;
    if (buffer.size < bytes) {
      throw new RangeError(`${where}: GPUBuffer ${arg.name} has ${buffer.size} bytes; its shape `
        + `needs ${bytes}`);
    }
    if (!(buffer.usage & BUFFER_USAGE.STORAGE)) {
      throw new TypeError(`${where}: GPUBuffer ${arg.name} needs the usage STORAGE `
        + '(GPUBufferUsage.STORAGE)');
    }
  }
}
