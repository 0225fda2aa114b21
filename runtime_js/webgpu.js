// The WebGPU half of webhal's JavaScript runtime: answers the `webhal_gpu_*` calls of a
// pipeline's wasm (docs/abi.md) on a GPUDevice, as webhal/runtime/webgpu.py does in Python.
// The shader module, the compute pipelines and the bind groups are made once and reused;
// device buffers follow host memory through dirty flags.
//
// Host copies are kept to the floor: an input only kernels read is written to the GPU straight
// from the caller's typed array (the wasm gets host memory it never reads; one of 4 MiB or
// more through a MAP_WRITE buffer kept per input, mapped between runs), and outputs come
// back through MAP_READ staging buffers kept per buffer, straight into the caller's array where
// only kernels write them. A run's dispatches (and its readback copies) are recorded into one
// command encoder and submitted once, at the end of the run or before anything the queue must
// order after them; each dispatch's scalar arguments have their own slot of one uniform buffer,
// written once per submission.
//
// A run whose arguments are all GPUBuffers, and whose entry only recorded dispatches (no
// upload of host data, no readback, no image kernels, one submission), leaves a replay: its
// dispatches and their arguments' bytes, under the run's arguments (`keep`). A later run with
// the same arguments (the same GPUBuffers, shapes and scalars) is that replay, submitted
// without calling the wasm (`replay`), while every buffer its bind groups name still stands:
// a buffer of the runtime's destroyed (remade at another size, say) voids every replay.
//
// A variant built with `profile` gets a GpuProfiler (profile.js): each dispatch is then its
// own compute pass with timestamp writes (or, without 'timestamp-query', its own submission,
// timed by the wall clock), and uploads and readbacks are waited for and timed. Unprofiled
// variants keep one pass and one submission per run and wait for nothing.
//
// The wasm calls are synchronous and WebGPU's readback is not, so this runtime does not wait
// inside a call: a pipeline's outputs written by kernels are read back after its entry function
// returns (`finish`). `webhal build` builds GPU variants only of pipelines whose host code
// reads nothing a kernel wrote before the end, so nothing else is ever waited for.

import { ERROR_CODE } from './abi.js';
import { GpuProfiler } from './profile.js';

export class WebGPUError extends Error {}

// -- new output arrays ------------------------------------------------------------------------
// A new typed array of many bytes costs more in page faults, when the read-back copy first
// writes each page, than the copy itself (256 MB: 110 ms of faults against a 25 ms copy on the
// GPU machine). Such arrays are made by a worker, which writes a byte of every page and hands
// the ArrayBuffer over (transferred, not copied) while the run uploads and the GPU works; and
// one more of the same size is made ahead for the next run, dropped if no run takes it within
// a second. Where no worker can start, the array is made here as before.

/** Outputs of at least this many bytes come in arrays made by the worker; inputs of at least
 * this many go to the GPU through a MAP_WRITE buffer kept per input (WebGPURuntime._staged). */
export const FRESH_MIN_BYTES = 1 << 22;
const UPLOAD_MIN_BYTES = FRESH_MIN_BYTES;
const SPARE_MS = 1000;
const WORKER_WAIT_MS = 5000;
const PAGE = 4096;
const TOUCH = `const touched = (bytes) => { const buffer = new ArrayBuffer(bytes);
  const u = new Uint8Array(buffer); for (let i = 0; i < bytes; i += ${PAGE}) u[i] = 0;
  return buffer; };`;
const NODE_WORKER = `${TOUCH} const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ id, bytes }) => { const buffer = touched(bytes);
  parentPort.postMessage({ id, buffer }, [buffer]); });`;
const BROWSER_WORKER = `${TOUCH} onmessage = ({ data: { id, bytes } }) => {
  const buffer = touched(bytes); postMessage({ id, buffer }, [buffer]); };`;

class FreshArrays {
  constructor() {
    this.worker = undefined;  // a promise of { post, ref, unref } or null; made on first use
    this.waiting = new Map(); // request id -> resolve
    this.next = 0;
    this.spare = null;        // { bytes, buffer: a promise }, the next run's, made ahead
    this.handle = null;       // the started worker's
  }

  /** A promise of a new ArrayBuffer of `bytes` (never rejects). */
  take(bytes) {
    const spare = this.spare;
    this.spare = null;
    const buffer = spare?.bytes === bytes ? spare.buffer : this._make(bytes);
    const next = { bytes, buffer: this._make(bytes) };
    this.spare = next;
    const timer = setTimeout(() => {
      if (this.spare === next) this.spare = null;
    }, SPARE_MS);
    timer.unref?.();
    return buffer;
  }

  async _make(bytes) {
    this.worker ??= this._start().catch(() => null);
    const worker = await this.worker;
    if (!worker) return new ArrayBuffer(bytes);
    this.handle = worker;
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      worker.ref();
      worker.post({ id, bytes });
      // A worker that never answers (an engine whose workers differ) costs a wait, not a hang:
      // FreshArray.ready then makes the array here.
      const timer = setTimeout(() => this._done(id, new ArrayBuffer(0)), WORKER_WAIT_MS);
      timer.unref?.();
    });
  }

  _done(id, buffer) {
    const resolve = this.waiting.get(id);
    this.waiting.delete(id);
    resolve?.(buffer);
    // (Node: an idle worker does not keep the process alive)
    if (!this.waiting.size) this.handle?.unref();
  }

  // A worker failed: no worker is used again, and what it was making is made by
  // FreshArray.ready (an empty buffer is the sign).
  _failed() {
    this.worker = Promise.resolve(null);
    for (const resolve of this.waiting.values()) resolve(new ArrayBuffer(0));
    this.waiting.clear();
  }

  async _start() {
    const node = globalThis.process?.versions?.node;
    if (node) {
      const name = 'node:worker_threads';  // Node only; a name bundlers do not try to resolve
      const { Worker } = await import(/* @vite-ignore */ /* webpackIgnore: true */ name);
      const worker = new Worker(NODE_WORKER, { eval: true });
      worker.unref();
      worker.on('message', ({ id, buffer }) => this._done(id, buffer));
      worker.on('error', () => this._failed());
      return { post: (m) => worker.postMessage(m), ref: () => worker.ref(), unref: () => worker.unref() };
    }
    if (typeof Worker !== 'function' || typeof Blob !== 'function') return null;
    const url = URL.createObjectURL(new Blob([BROWSER_WORKER], { type: 'text/javascript' }));
    const worker = new Worker(url);  // a page whose CSP forbids blob: workers fails here or below
    worker.onmessage = ({ data: { id, buffer } }) => this._done(id, buffer);
    worker.onerror = () => this._failed();
    return { post: (m) => worker.postMessage(m), ref() {}, unref() {} };
  }
}

const freshArrays = new FreshArrays();

/** An output's new array, made while the run goes on (see FreshArrays): `ready()` gives its
 * bytes once made; `buffer` is then its ArrayBuffer. */
export class FreshArray {
  constructor(bytes) {
    this.bytes = bytes;
    this.made = freshArrays.take(bytes);
    this.buffer = null;
  }

  async ready() {
    let buffer = await this.made;
    // (a worker that failed mid-way gave nothing of this size)
    if (buffer.byteLength !== this.bytes) buffer = new ArrayBuffer(this.bytes);
    this.buffer = buffer;
    return new Uint8Array(buffer);
  }
}

// GPUBufferUsage and GPUMapMode bits (fixed by the WebGPU specification), spelled out so that
// the runtime needs no globals in Node.
const USAGE = Object.freeze({ MAP_READ: 0x1, MAP_WRITE: 0x2, COPY_SRC: 0x4, COPY_DST: 0x8,
  UNIFORM: 0x40, STORAGE: 0x80 });
export const BUFFER_USAGE = USAGE;

/** Whether `value` is a GPUBuffer (by its shape: Node's bindings define no global class). */
export function isGpuBuffer(value) {
  return value !== null && typeof value === 'object' && typeof value.mapAsync === 'function'
    && typeof value.size === 'number' && typeof value.usage === 'number';
}
const MAP_READ = 0x1;
const MAP_WRITE = 0x2;

// No arguments bound (between runs).
const NONE = new Map();

// A bind group cache larger than this is started over (see WebGPURuntime._bindGroup).
const MAX_BIND_GROUPS = 256;

// Replays kept (the argument sets last run: two for GPUBuffers used in turn, as a ping-pong).
const MAX_REPLAYS = 4;

// Whether two replay keys (flat arrays of arguments) are the same: the same objects, and the
// same numbers (-0 is not 0; NaN is NaN).
function sameKey(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

// Whether the first n bytes of a and b are the same.
function sameBytes(a, b, n) {
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

// A number per GPU object, for cache keys (WebGPU objects have no identity of their own).
const objectIds = new WeakMap();
let nextObjectId = 0;
function objectId(object) {
  let id = objectIds.get(object);
  if (id === undefined) objectIds.set(object, id = nextObjectId++);
  return id;
}

// Adapters that run on the CPU: SwiftShader (Chromium's and Dawn's), Mesa's llvmpipe/lavapipe
// and softpipe, Microsoft's WARP ("Microsoft Basic Render Driver"). Pipelines there run many
// times slower than the wasm variants of the same package.
const SOFTWARE = /swiftshader|llvmpipe|lavapipe|softpipe|microsoft basic render|\bwarp\b/i;

/** The adapter's { vendor, architecture, device, description, isFallbackAdapter }. */
export async function describeAdapter(adapter) {
  // adapter.info is today's WebGPU; requestAdapterInfo() that of Chrome before 127.
  const info = adapter.info ?? await adapter.requestAdapterInfo?.().catch(() => null) ?? {};
  const { vendor = '', architecture = '', device = '', description = '' } = info;
  const isFallbackAdapter = Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter);
  return { vendor, architecture, device, description, isFallbackAdapter };
}

/**
 * Why `info` (describeAdapter's) is a software adapter, as a few words naming it ("software
 * adapter SwiftShader driver 5.0.0 (google swiftshader)"), or null for a hardware one.
 */
export function softwareAdapter(info) {
  const words = [info.description, info.device, info.architecture, info.vendor]
    .filter(Boolean);
  const named = words.join(' ').match(SOFTWARE);
  if (!named && !info.isFallbackAdapter) return null;
  const what = info.description || info.device || properName(named?.[0]) || 'of this browser';
  const where = [info.vendor, info.architecture].filter(Boolean).join(' ');
  return `${named ? 'software' : 'fallback'} adapter ${what}`
    + (where && where !== what ? ` (${where})` : '');
}

// Chromium names its adapter in lower case only ("google", "swiftshader").
function properName(word) {
  if (!word) return '';
  const names = { swiftshader: 'SwiftShader', warp: 'WARP',
    'microsoft basic render': 'Microsoft Basic Render Driver' };
  return names[word.toLowerCase()] ?? word;
}

/** A WebGPU adapter the caller did not ask for: a software one, where wasm is faster. */
export class SoftwareAdapterError extends Error {}

/**
 * The device to run on: opts.device, else one from opts.gpu or navigator.gpu. With
 * `hardwareOnly`, a software or fallback adapter is refused (SoftwareAdapterError) before a
 * device is made on it. `optional` features are asked for where the adapter has them
 * (a profiled variant's 'timestamp-query').
 */
export async function requestDevice(opts, features, { hardwareOnly = false, optional = [] } = {}) {
  if (opts.device) {
    const missing = features.filter((f) => !opts.device.features.has(f));
    if (missing.length) throw new WebGPUError(`the device lacks the WebGPU feature ${missing[0]}`);
    userDevices.add(opts.device);
    return opts.device;
  }
  const gpu = opts.gpu ?? globalThis.navigator?.gpu ?? await nodeBindings();
  if (!gpu) {
    throw new WebGPUError('no WebGPU here: in a browser it needs a secure context (https or '
      + 'localhost) with WebGPU on; in Node pass { gpu } (the npm package webgpu: '
      + "create([]) from 'webgpu'), or set HL_WEBGPU_NODE_BINDINGS to a dawn.node");
  }
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new WebGPUError('WebGPU offered no adapter');
  if (hardwareOnly) {
    const software = softwareAdapter(await describeAdapter(adapter));
    if (software) throw new SoftwareAdapterError(software);
  }
  const missing = features.filter((f) => !adapter.features.has(f));
  if (missing.length) {
    throw new WebGPUError(`the adapter lacks the WebGPU feature ${missing.join(', ')} that this `
      + 'pipeline\'s kernels use');
  }
  const requiredLimits = Object.fromEntries(COMPUTE_LIMITS.map((l) => [l, adapter.limits[l]]));
  const requiredFeatures = [...features,
    ...optional.filter((f) => adapter.features.has(f) && !features.includes(f))];
  const device = await adapter.requestDevice({ requiredFeatures, requiredLimits });
  // dawn.node frees its instance when the GPU object is collected, under devices still in
  // use (a crash): the device keeps what it came from alive.
  keepAlive.set(device, [gpu, adapter]);
  return device;
}

const keepAlive = new WeakMap();

/** What `device` runs on ({ vendor, architecture, device, description }), or null. */
export function adapterInfo(device) {
  const info = device?.adapterInfo ?? keepAlive.get(device)?.[1]?.info;
  if (!info) return null;
  const { vendor, architecture, device: name, description } = info;
  return { vendor, architecture, device: name, description };
}
const userDevices = new WeakSet();  // devices handed in, which this runtime must not replace

// In Node, HL_WEBGPU_NODE_BINDINGS names a dawn.node to load (as in Halide's WebGPU runtime).
async function nodeBindings() {
  const path = globalThis.process?.env?.HL_WEBGPU_NODE_BINDINGS;
  if (!path) return null;
  const name = 'node:module';  // Node only; a name bundlers do not try to resolve
  const { createRequire } = await import(/* @vite-ignore */ /* webpackIgnore: true */ name);
  try {
    return createRequire(import.meta.url)(path).create([]);
  } catch (e) {
    throw new WebGPUError(`HL_WEBGPU_NODE_BINDINGS=${path} does not load: ${e.message}`);
  }
}

// The limits kernels need, asked for as high as the adapter has them.
export const COMPUTE_LIMITS = Object.freeze(['maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX', 'maxComputeWorkgroupSizeY', 'maxComputeWorkgroupSizeZ',
  'maxComputeWorkgroupStorageSize', 'maxStorageBuffersPerShaderStage',
  'maxStorageBufferBindingSize', 'maxBufferSize']);

/** Why a kernel of the manifest exceeds `limits` (a device's), or null. */
export function checkLimits(limits, kernel) {
  const [x, y, z] = kernel.workgroup_size;
  if (x * y * z > limits.maxComputeInvocationsPerWorkgroup) {
    return `kernel ${kernel.name} has ${x}x${y}x${z} = ${x * y * z} invocations per workgroup, `
      + `more than this device's maxComputeInvocationsPerWorkgroup (${limits.maxComputeInvocationsPerWorkgroup}); `
      + 'use smaller gpu_tile sizes';
  }
  const axes = [['X', x], ['Y', y], ['Z', z]];
  for (const [axis, n] of axes) {
    if (n > limits[`maxComputeWorkgroupSize${axis}`]) {
      return `kernel ${kernel.name} has ${n} invocations along ${axis.toLowerCase()}, more than `
        + `this device's maxComputeWorkgroupSize${axis} (${limits[`maxComputeWorkgroupSize${axis}`]})`;
    }
  }
  return null;
}

export class WebGPURuntime {
  /** Compile `wgsl` with its manifest on `device`; rejects with the WGSL lines at fault.
   * With `profile` (the variant was built with it), kernels and copies are timed. */
  static async create(device, wgsl, manifest, outputs, { profile = false } = {}) {
    for (const k of manifest.kernels) {
      const why = checkLimits(device.limits, k);
      if (why) throw new WebGPUError(why);
    }
    device.pushErrorScope('validation');
    const module = device.createShaderModule({ code: wgsl });
    const info = await module.getCompilationInfo();
    const moduleError = await device.popErrorScope();
    const errors = info.messages.filter((m) => m.type === 'error');
    if (errors.length || moduleError) {
      const lines = wgsl.split('\n');
      const shown = errors.map((m) => `${m.lineNum}:${m.linePos}: ${m.message}\n  `
        + `${lines[m.lineNum - 1] ?? ''}`);
      throw new WebGPUError('the WebGPU device rejected webhal\'s WGSL (a webhal bug; please '
        + `report it):\n${shown.join('\n') || moduleError.message}`);
    }
    device.pushErrorScope('validation');
    const pipelines = manifest.kernels.map((k) => device.createComputePipeline({
      layout: 'auto',
      compute: { module, entryPoint: k.name,
        constants: Object.fromEntries(k.overrides.map((o, i) => [o, k.workgroup_size[i]])) },
    }));
    const pipelineError = await device.popErrorScope();
    if (pipelineError) throw new WebGPUError(`creating the compute pipelines failed: ${pipelineError.message}`);
    return new WebGPURuntime(device, manifest, pipelines, outputs, profile);
  }

  constructor(device, manifest, pipelines, outputs, profile = false) {
    this.device = device;
    this.manifest = manifest;
    this.pipelines = pipelines;
    this.outputs = new Set(outputs);
    this.byId = new Map(manifest.buffers.map((b) => [b.id, b]));
    // Per kernel: the ids of the buffers it binds (fixed by the manifest).
    this.kernelIds = manifest.kernels.map((k) => manifest.buffers
      .filter((b) => k.buffers.includes(b.binding)).map((b) => b.id));
    this.buffers = new Map();   // id -> { gpu, nbytes, host, hostBytes, hostNewer, deviceNewer, into }
    this.staging = new Map();   // id -> MAP_READ buffer of its size, reused by every readback
    this.uploads = new Map();   // id -> MAP_WRITE buffer of its size, for large inputs (_upload)
    this.bindGroups = new Map();
    // Per kernel: the last bind group taken and what it binds (buffers, args slot), so that a
    // run binding the same buffers as the last one skips building the cache key.
    this.lastGroups = manifest.kernels.map(() => null);
    this.maxWorkgroups = device.limits.maxComputeWorkgroupsPerDimension;
    this.queue = device.queue;
    this.pending = [];          // outputs to read back after the entry returns
    this.bound = new Map();     // argument name -> the caller's GPUBuffer, for one run
    this.arrays = new Map();    // argument name -> the caller's typed array, for one run
    // One submission per run: the open encoder and compute pass, and the dispatches' scalar
    // arguments, one slot each (a uniform binding's offset must be a multiple of
    // minUniformBufferOffsetAlignment), written to `argsBuffer` just before the submit.
    this.encoder = null;
    this.pass = null;
    const most = Math.max(4, ...manifest.kernels.map((k) => k.args_bytes ?? 0));
    const align = device.limits.minUniformBufferOffsetAlignment ?? 256;
    this.slotBytes = Math.ceil(most / align) * align;
    this.slots = 0;             // slots used since the last submit
    this.argsBuffer = null;
    this.argBytes = new Uint8Array(0);
    this.argsOnGpu = null;  // a copy of what argsBuffer holds, once written
    this.error = null;
    this.heap = null;           // () => the wasm memory's current Uint8Array
    this.lost = null;
    this.userDevice = userDevices.has(device);
    this.profiler = profile ? new GpuProfiler(device) : null;
    // Replays (see the header): what this run recorded (flat: pipeline, group, gx, gy, gz per
    // dispatch; null once the run did anything else), how many submissions it made, its replay
    // once finish() found it one, and the replays kept. `generation` counts the runtime's
    // buffers destroyed: a replay made in another generation may bind one of them.
    this.log = null;
    this.submits = 0;
    this.candidate = null;
    this.replays = [];
    this.generation = 0;
    device.lost?.then((info) => { this.lost = info.message || info.reason || 'lost'; });
  }

  // -- the calls the wasm makes (each returns 0 or an error code) ----------------------------

  /**
   * The caller's data for the next run, by argument name (empty maps after it): `buffers`,
   * GPUBuffers bound in place of the runtime's own; `arrays`, typed arrays of arguments only
   * kernels touch: an input's is written to the GPU from it, an output is read back into it.
   */
  bind(buffers, arrays = NONE) {
    this.bound = buffers;
    this.arrays = arrays;
    // What a failed run recorded and did not submit is dropped, unrun.
    this.pass?.end();
    this.encoder = null;
    this.pass = null;
    this.slots = 0;
    this.pending = [];
    this.log = this.profiler ? null : [];
    this.submits = 0;
    this.candidate = null;
    this.profiler?.startRun();
  }

  /** Keep the replay of the run that just finished under `key` (its arguments, flat), when
   * it left one; the pipeline calls this once the run has succeeded. */
  keep(key) {
    const replay = this.candidate;
    this.candidate = null;
    if (!replay) return;
    replay.key = key;
    this.replays = [replay, ...this.replays.filter((r) => !sameKey(r.key, key)
      && r.generation === this.generation)].slice(0, MAX_REPLAYS);
  }

  /** Submit the replay kept under `key` (see keep): true, or false when there is none. */
  replay(key) {
    const replays = this.replays;
    let replay = null;
    for (let i = 0; i < replays.length; i++) {
      if (replays[i].generation === this.generation && sameKey(replays[i].key, key)) {
        replay = replays[i];
        // The most recently used first: the last kept to go when another is kept.
        if (i) replays.splice(0, 0, ...replays.splice(i, 1));
        break;
      }
    }
    if (!replay || this.lost) return false;
    const { dispatches, args } = replay;
    if (args && !(this.argsOnGpu && sameBytes(args, this.argsOnGpu, args.length))) {
      this.queue.writeBuffer(this.argsBuffer, 0, args, 0, args.length);
      this.argsOnGpu ??= new Uint8Array(this.argBytes.length);
      this.argsOnGpu.set(args);
    }
    if (!dispatches.length) return true;
    const encoder = this.device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    let pipeline = null;
    for (let i = 0; i < dispatches.length; i += 5) {
      if (dispatches[i] !== pipeline) pass.setPipeline(pipeline = dispatches[i]);
      pass.setBindGroup(0, dispatches[i + 1]);
      pass.dispatchWorkgroups(dispatches[i + 2], dispatches[i + 3], dispatches[i + 4]);
    }
    pass.end();
    this.queue.submit([encoder.finish()]);
    return true;
  }

  // The runtime's own buffer `b` is destroyed: replays that bind it are void.
  _destroyed(b) {
    b.gpu.destroy();
    this.generation++;
  }

  buffer(id, host, nbytes, hostCurrent) {
    return this._guard('device_malloc_failed', () => {
      const size = Math.max(4, Math.ceil(nbytes / 4) * 4);
      let b = this.buffers.get(id);
      const name = this.byId.get(id).name;
      const user = this.bound.get(name);
      if (user) {
        // The data is (or is to be) in the caller's buffer: nothing to upload or read back.
        if (b?.gpu !== user) {
          if (b && !b.user) this._flush();  // recorded dispatches may still use it
          if (b && !b.user) this._destroyed(b);
          b = { gpu: user, nbytes: size, user: true };
          this.buffers.set(id, b);
        }
        b.host = host;
        b.hostBytes = nbytes;
        b.hostNewer = false;
        b.deviceNewer = false;
        b.into = null;
        return;
      }
      if (!b || b.nbytes !== size || b.user) {
        if (b && !b.user) this._flush();  // recorded dispatches may still use it
        if (b && !b.user) this._destroyed(b);
        b = { gpu: this.device.createBuffer({ size, usage: USAGE.STORAGE
          | USAGE.COPY_SRC | USAGE.COPY_DST }), nbytes: size };
        this.buffers.set(id, b);
      }
      const array = this.arrays.get(name);
      Object.assign(b, { host, hostBytes: nbytes, hostNewer: !!hostCurrent && !array,
        deviceNewer: false, into: null });
      if (!array) return;
      // Only kernels touch this argument, so the wasm never reads its host memory.
      if (array instanceof FreshArray) {
        b.into = array;
        return;
      }
      const bytes = new Uint8Array(array.buffer, array.byteOffset, nbytes);
      if (this.outputs.has(name)) b.into = bytes;
      else this._upload(b.gpu, bytes, name, id);
    });
  }

  hostDirty(id) {
    return this._guard('internal_error', () => {
      const b = this.buffers.get(id);
      b.hostNewer = true;
      b.deviceNewer = false;
    });
  }

  copyToHost(id) {
    return this._guard('copy_to_host_failed', () => {
      const b = this.buffers.get(id);
      if (!b.deviceNewer) return;
      const name = this.byId.get(id).name;
      if (!this.outputs.has(name)) {
        throw new WebGPUError(`the host code reads ${name}, which a kernel wrote, before the `
          + 'pipeline ends: this runtime reads GPU results back only at the end');
      }
      this.pending.push([id, b]);
      b.deviceNewer = false;
    });
  }

  /** Variants that suspend (ASYNCIFY, JSPI): read a result back now; a promise of 0 or an
   * error code. */
  async copyToHostNow(id) {
    try {
      if (this.lost) throw new WebGPUError(`the WebGPU device was lost: ${this.lost}`);
      const b = this.buffers.get(id);
      if (b.deviceNewer) {
        await this._readBack([[id, b]]);
        b.deviceNewer = false;
      }
      return 0;
    } catch (e) {
      this.error = this.error ?? e;
      return ERROR_CODE.copy_to_host_failed;
    }
  }

  run(kernel, gx, gy, gz, argsAt, nbytes) {
    return this._guard('device_run_failed', () => {
      const k = this.manifest.kernels[kernel];
      const most = this.maxWorkgroups;
      if (gx > most || gy > most || gz > most) {
        throw new WebGPUError(`kernel ${k.name} needs ${gx}x${gy}x${gz} workgroups, more than the `
          + `device allows per dimension (${most}); use larger gpu_tile sizes`);
      }
      if (gx <= 0 || gy <= 0 || gz <= 0) return;
      const ids = this.kernelIds[kernel];
      for (const id of ids) {
        const b = this.buffers.get(id);
        if (b.hostNewer) {
          // Host code wrote it: the queue must see this write after what was recorded so far.
          this._flush();
          const heap = this.heap();
          this._upload(b.gpu, heap.subarray(b.host, b.host + b.hostBytes), this.byId.get(id).name);
          b.hostNewer = false;
        }
      }
      let slot = -1;
      if ('args_binding' in k) {
        if (this.slots * this.slotBytes >= this.argBytes.length) this._growArgs();
        slot = this.slots++;
        this.argBytes.set(this.heap().subarray(argsAt, argsAt + nbytes), slot * this.slotBytes);
      }
      const group = this._bindGroup(kernel, k, ids, slot);
      if (this.profiler) this._profiledPass(k.name);
      else this.computePass();
      this.pass.setPipeline(this.pipelines[kernel]);
      this.pass.setBindGroup(0, group);
      this.pass.dispatchWorkgroups(gx, gy, gz);
      this.log?.push(this.pipelines[kernel], group, gx, gy, gz);
      for (const id of ids) {
        const b = this.buffers.get(id);
        if (!this.byId.get(id).read_only && !b.user) b.deviceNewer = true;
      }
      // Without timestamps, a kernel's time is its submission's.
      if (this.profiler && !this.profiler.timestamps) this._flush();
    });
  }

  /** After the entry returns: submit what the run recorded (with the image kernels
   * `beforeSubmit(this)` records), and read the outputs kernels wrote back (into the caller's
   * arrays, or into wasm memory). A promise of that, or null when nothing is read back. */
  finish(beforeSubmit = null) {
    const log = this.log;
    this.log = null;
    if (beforeSubmit) this.recordImages(beforeSubmit);
    // Nothing to wait for (the usual run on GPUBuffers): submitted now, no promise.
    if (!this.pending.length && !this.profiler) {
      // Only dispatches, all in this one submission: the run can be replayed.
      if (log && !beforeSubmit && !this.submits) {
        const used = this.slots * this.slotBytes;
        this.candidate = { dispatches: log, generation: this.generation,
          args: used ? this.argBytes.slice(0, used) : null };
      }
      this._flush();
      return null;
    }
    return this._finish();
  }

  async _finish() {
    const start = this.profiler && performance.now();
    const pending = this.pending;
    this.pending = [];
    if (pending.length) await this._readBack(pending);
    else this._flush();
    if (this.profiler) {
      await this.profiler.settle();
      this.profiler.endRun(performance.now() - start);
    }
  }

  // -- recording into the run's submission (also gpu_images.js's unpack and pack kernels) ----

  /** The run's open compute pass, begun (with the run's command encoder) if there is none. */
  computePass() {
    if (!this.pass) {
      this.encoder ??= this.device.createCommandEncoder();
      this.pass = this.encoder.beginComputePass();
    }
    return this.pass;
  }

  /** The run's command encoder with no pass open, for copies and render passes. */
  commandEncoder() {
    this.pass?.end();
    this.pass = null;
    return this.encoder ??= this.device.createCommandEncoder();
  }

  /** Image kernels (gpu_images.js): `record(runtime)` records them into the run's encoder;
   * a profiled variant submits them apart, so that they are not counted as its kernels. */
  recordImages(record) {
    if (this.profiler) this._flush();
    record(this);
    if (this.profiler) this._flush();
  }

  // -- helpers -------------------------------------------------------------------------------

  // Profiled: each dispatch in a compute pass of its own, whose timestamps say its time.
  _profiledPass(name) {
    if (this.profiler.full()) this._flush();
    this.pass?.end();
    this.encoder ??= this.device.createCommandEncoder();
    this.pass = this.encoder.beginComputePass(this.profiler.pass(name));
  }

  // The bind group of a kernel's buffers (and its args slot): one per argument set, reused
  // by every run that binds the same GPUBuffers.
  _bindGroup(kernel, k, ids, slot) {
    const last = this.lastGroups[kernel];
    if (last && last.slot === slot && last.argsBuffer === this.argsBuffer) {
      let same = true;
      for (let i = 0; i < ids.length; i++) {
        if (last.gpus[i] !== this.buffers.get(ids[i]).gpu) {
          same = false;
          break;
        }
      }
      if (same) return last.group;
    }
    const group = this._cachedBindGroup(kernel, k, ids, slot);
    this.lastGroups[kernel] = { slot, argsBuffer: this.argsBuffer, group,
      gpus: ids.map((id) => this.buffers.get(id).gpu) };
    return group;
  }

  _cachedBindGroup(kernel, k, ids, slot) {
    let key = `${kernel}:${slot}`;
    for (const id of ids) key += `:${objectId(this.buffers.get(id).gpu)}`;
    let group = this.bindGroups.get(key);
    if (group) return group;
    const entries = ids.map((id) => ({ binding: this.byId.get(id).binding,
      resource: { buffer: this.buffers.get(id).gpu } }));
    if (slot >= 0) {
      entries.push({ binding: k.args_binding, resource: { buffer: this.argsBuffer,
        offset: slot * this.slotBytes, size: k.args_bytes } });
    }
    group = this.device.createBindGroup({ layout: this.pipelines[kernel].getBindGroupLayout(0),
      entries });
    // Buffers made anew (or GPUBuffers of the caller's that change every run) leave groups no
    // run will bind again: the cache starts over rather than grow without end.
    if (this.bindGroups.size >= MAX_BIND_GROUPS) this.bindGroups.clear();
    this.bindGroups.set(key, group);
    return group;
  }

  // Twice the slots: what was recorded is submitted first (it binds the old buffer).
  _growArgs() {
    this._flush();
    const slots = Math.max(8, (this.argBytes.length / this.slotBytes) * 2);
    this.argsBuffer?.destroy();
    this.generation++;
    this.argsBuffer = this.device.createBuffer({ size: slots * this.slotBytes,
      usage: USAGE.UNIFORM | USAGE.COPY_DST });
    this.argBytes = new Uint8Array(slots * this.slotBytes);
    this.argsOnGpu = null;  // the new buffer holds nothing yet
    this.bindGroups.clear();
  }

  // Submit what was recorded since the last submit (dispatches, then `copies`), after one
  // write of their arguments. Later writeBuffer calls are ordered after it by the queue.
  _flush(copies = []) {
    if (!this.encoder && !copies.length) return;
    const encoder = this.encoder ?? this.device.createCommandEncoder();
    this.pass?.end();
    for (const [from, to, size] of copies) encoder.copyBufferToBuffer(from, 0, to, 0, size);
    this.profiler?.resolve(encoder);
    const start = this.profiler && performance.now();
    // Runs with the same scalars (the usual loop) find them on the GPU already.
    const used = this.slots * this.slotBytes;
    if (used && !(this.argsOnGpu && sameBytes(this.argBytes, this.argsOnGpu, used))) {
      this.queue.writeBuffer(this.argsBuffer, 0, this.argBytes, 0, used);
      this.argsOnGpu ??= new Uint8Array(this.argBytes.length);
      this.argsOnGpu.set(this.argBytes.subarray(0, used));
    }
    this.queue.submit([encoder.finish()]);
    this.submits++;
    this.profiler?.submitted(start);
    this.encoder = null;
    this.pass = null;
    this.slots = 0;
  }

  // Write `bytes` (a Uint8Array, buffer `name`'s) to the start of `gpu`. writeBuffer takes
  // whole 4-byte words: a last partial word goes through a 4-byte copy. Dawn copies the data
  // before returning. A caller's array of at least UPLOAD_MIN_BYTES (buffer `id`'s) goes
  // through a MAP_WRITE buffer of its own instead (_staged).
  _upload(gpu, bytes, name, id = -1) {
    this.log = null;  // host data went to the GPU: a replay would not send it again
    const start = this.profiler && performance.now();
    if (!(id >= 0 && bytes.length >= UPLOAD_MIN_BYTES && this._staged(gpu, bytes, id))) {
      const whole = bytes.length & ~3;
      if (whole) {
        // A view of shared memory (a threads variant's heap) is copied first.
        const data = bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice(0, whole);
        this.device.queue.writeBuffer(gpu, 0, data, 0, whole);
      }
      if (whole < bytes.length) {
        const tail = new Uint8Array(4);
        tail.set(bytes.subarray(whole));
        this.device.queue.writeBuffer(gpu, whole, tail);
      }
    }
    if (this.profiler) this.profiler.uploaded(name, performance.now() - start);
  }

  // A large input through buffer `id`'s MAP_WRITE buffer, kept mapped between runs: the bytes
  // copied into its mapped range, and its copy into `gpu` submitted at once (ordered on the
  // queue as writeBuffer would be; the GPU copies while the wasm records the run), then mapped
  // again for the next run. Dawn stages a writeBuffer larger than its 4 MB ring buffer in a
  // buffer made for that call, and pays for its allocation and fresh pages: 50 MB cost 16.5 ms
  // in writeBuffer on the H200 (dawn.node), 5.3 ms copied into this buffer. False, having
  // written nothing, while the buffer is not mapped (the GPU still on the last run's copy, a
  // run not awaiting its results): writeBuffer then.
  _staged(gpu, bytes, id) {
    const size = Math.ceil(bytes.length / 4) * 4;
    let s = this.uploads.get(id);
    if (s?.size !== size) {
      s?.destroy();
      s = this.device.createBuffer({ size, usage: USAGE.MAP_WRITE | USAGE.COPY_SRC,
        mappedAtCreation: true });
      this.uploads.set(id, s);
    }
    if (s.mapState !== 'mapped') {
      // (unmapped and no map pending: the last one failed; asked again for the next run)
      if (s.mapState === 'unmapped') s.mapAsync(MAP_WRITE).catch(() => {});
      return false;
    }
    new Uint8Array(s.getMappedRange(0, size), 0, bytes.length).set(bytes);
    s.unmap();
    const encoder = this.device.createCommandEncoder();
    encoder.copyBufferToBuffer(s, 0, gpu, 0, size);
    this.queue.submit([encoder.finish()]);
    s.mapAsync(MAP_WRITE).catch(() => {});
    return true;
  }

  // The MAP_READ buffer that buffer `id`'s results come back through, kept across runs.
  _stagingFor(id, size) {
    let s = this.staging.get(id);
    if (s?.size !== size) {
      s?.destroy();
      s = this.device.createBuffer({ size, usage: USAGE.MAP_READ | USAGE.COPY_DST });
      this.staging.set(id, s);
    }
    return s;
  }

  // Copy device buffers into the caller's arrays or their host memory in the wasm heap,
  // through their staging buffers, the copies submitted with the run's dispatches.
  // Profiled, the kernels are waited for first, so that the readback's time is its own.
  async _readBack(pending) {
    if (this.profiler) {
      this._flush();
      await this.profiler.settle();
    }
    const staging = pending.map(([id, b]) => this._stagingFor(id, b.nbytes));
    const start = this.profiler && performance.now();
    this._flush(pending.map(([, b], i) => [b.gpu, staging[i], b.nbytes]));
    const mapped = staging.map((s) => s.mapAsync(MAP_READ));
    // (a failed mapAsync is reported by the await below)
    const at = this.profiler && mapped.map((m) => m.then(() => performance.now(), () => 0));
    try {
      await Promise.all(mapped);
    } catch (e) {
      for (const s of staging) if (s.mapState === 'mapped') s.unmap();
      throw new WebGPUError(`reading results back from the GPU failed${this.lost ? ` (device lost: ${this.lost})` : ''}: ${e.message}`);
    }
    const times = at && await Promise.all(at);
    // New arrays made meanwhile (FreshArray), awaited with the staging buffers mapped.
    for (const [, b] of pending) if (b.into instanceof FreshArray) b.into = await b.into.ready();
    pending.forEach(([id, b], i) => {
      const copyStart = at && performance.now();
      const bytes = new Uint8Array(staging[i].getMappedRange(0, b.nbytes), 0, b.hostBytes);
      if (b.into) b.into.set(bytes);
      else this.heap().set(bytes, b.host);
      staging[i].unmap();
      if (at) {
        this.profiler.readBack(this.byId.get(id).name,
          times[i] - start + performance.now() - copyStart);
      }
    });
  }

  /**
   * Release what this runtime made on the device: its buffers (not the caller's GPUBuffers),
   * and the device itself when it asked for it (not a device passed to create()). The compute
   * pipelines and bind groups are garbage once nothing refers to them.
   */
  destroy() {
    for (const b of this.buffers.values()) if (!b.user) b.gpu.destroy();
    for (const s of this.staging.values()) s.destroy();
    for (const s of this.uploads.values()) s.destroy();
    this.argsBuffer?.destroy();
    this.argsBuffer = null;
    this.profiler?.destroy();
    this.buffers.clear();
    this.staging.clear();
    this.uploads.clear();
    this.bindGroups.clear();
    this.replays = [];
    this.candidate = null;
    this.generation++;
    this.pipelines = [];
    this.encoder = null;
    this.pass = null;
    this.bound = new Map();
    this.arrays = new Map();
    if (!this.userDevice) this.device.destroy?.();
    this.heap = null;
  }

  /** The message of the last failed call, taken. */
  takeError() {
    const e = this.error;
    this.error = null;
    return e;
  }

  _guard(fails, body) {
    try {
      if (this.lost) throw new WebGPUError(`the WebGPU device was lost: ${this.lost}`);
      body();
      return 0;
    } catch (e) {
      this.error = this.error ?? e;
      return ERROR_CODE[fails];
    }
  }
}
