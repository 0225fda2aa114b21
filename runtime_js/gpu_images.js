// Images in and out of a webgpu variant without the CPU (issue 30, items 1 and 2).
//
// An input may be an image source (ImageBitmap, VideoFrame, HTMLVideoElement, HTMLImageElement,
// HTMLCanvasElement, OffscreenCanvas, ImageData, or a GPUTexture of p.device): it is copied on
// the GPU (copyExternalImageToTexture; importExternalTexture for video; writeTexture for
// ImageData, whose bytes are already on the CPU) and a compute kernel unpacks it into a
// GPUBuffer in the input's layout, which the pipeline then binds as that input's storage. An
// output may name a GPUCanvasContext or a GPUTexture: the pipeline writes a GPUBuffer, and a
// compute kernel packs the output's layout into the texture (a store into a storage texture,
// or bytes into 256-byte rows copied in), or a render pass where neither is allowed. Nothing
// is read back. The unpack and pack kernels are recorded into the run's own command encoder, so
// that a run from textures to textures is one submission; only the first run to see a texture
// or canvas submits them apart, to wait for WebGPU's verdict on it.
//
// Layouts are runtime_js/image_data.js's: a 2-D input is grey [x, y], a 3-D one planar
// [x, y, c] or interleaved [c, x, y]. On the GPU, 8- and 16-bit elements are packed in 32-bit
// words, little end first (webhal/codegen/wgsl: element i is bits 8*(i%4).. of word i/4 for
// uint8), i.e. the same bytes as the host's buffer: the kernels here write and read exactly that.
//
// Only arguments that only kernels touch (the variant's deviceArguments) can be images: the
// CPU variants, and arguments the host code reads, get a named error saying what to pass.

import { ARRAYS } from './buffers.js';

// GPUTextureUsage, GPUBufferUsage and GPUShaderStage bits (fixed by the WebGPU specification),
// spelled out so that this runs where the globals are missing (Node).
const TEXTURE = Object.freeze({ COPY_SRC: 0x1, COPY_DST: 0x2, TEXTURE_BINDING: 0x4,
  STORAGE_BINDING: 0x8, RENDER_ATTACHMENT: 0x10 });
// Formats every WebGPU device stores to from a compute kernel (bgra8unorm and r8unorm need
// features or are not storable): a target of these with STORAGE_BINDING is packed by a kernel.
const STORABLE = new Set(['rgba8unorm', 'rgba16float', 'rgba32float', 'r32float']);
// 8-bit formats a kernel can write as bytes into a buffer of 256-byte rows, which
// copyBufferToTexture then moves into a target with COPY_DST (r8unorm is storable nowhere in
// core WebGPU, bgra8unorm only with 'bgra8unorm-storage'): bytes per pixel, by format.
const BYTE_FORMATS = Object.freeze({ r8unorm: 1, rgba8unorm: 4, bgra8unorm: 4 });
const BUFFER = Object.freeze({ COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, STORAGE: 0x80 });
const STAGE = Object.freeze({ FRAGMENT: 0x2, COMPUTE: 0x4 });

// Texture formats an input may be, by what they feed: unorm ones uint8, uint16 and float
// inputs (as [0, 1]); float ones float inputs only. One-channel formats feed 2-D inputs.
const UNORM = new Set(['r8unorm', 'rgba8unorm', 'rgba8unorm-srgb', 'bgra8unorm',
  'bgra8unorm-srgb', 'rgba16unorm', 'r16unorm', 'rgb10a2unorm']);
const FLOAT = new Set(['r16float', 'r32float', 'rgba16float', 'rgba32float']);
const ONE_CHANNEL = new Set(['r8unorm', 'r16unorm', 'r16float', 'r32float']);

// Element types images convert to and from, with the bits each takes in a 32-bit word.
const TYPES = Object.freeze({ uint8: 8, uint16: 16, float32: 32 });

// 'an' before a vowel sound: ImageData, HTMLVideoElement, r8unorm ("ar"), rgba8unorm.
const a = (word) => (/^([AEIOU]|HTML|[aefhilmnorsx])/.test(word) ? `an ${word}` : `a ${word}`);
const isA = (value, name) => typeof globalThis[name] === 'function' && value instanceof globalThis[name];

/** Whether `value` is a GPUTexture (by its shape: Node's bindings define no global class). */
export function isGpuTexture(value) {
  return value !== null && typeof value === 'object' && typeof value.createView === 'function'
    && typeof value.format === 'string' && typeof value.usage === 'number';
}

/** Whether `value` is a GPUCanvasContext (a canvas's getContext('webgpu')). */
export function isCanvasContext(value) {
  return value !== null && typeof value === 'object'
    && typeof value.getCurrentTexture === 'function' && typeof value.configure === 'function';
}

// ImageData, or an object of its shape ({ data: Uint8ClampedArray, width, height }, what
// toImageData returns where ImageData is missing); a pipeline buffer has a shape instead.
function isImageData(value) {
  if (isA(value, 'ImageData')) return true;
  return value !== null && typeof value === 'object' && value.data instanceof Uint8ClampedArray
    && Number.isInteger(value.width) && Number.isInteger(value.height) && !('shape' in value);
}

/**
 * The kind of image source `value` is ('ImageBitmap', 'VideoFrame', 'HTMLVideoElement',
 * 'HTMLImageElement', 'HTMLCanvasElement', 'OffscreenCanvas', 'ImageData', 'GPUTexture'), or
 * null when it is none.
 */
export function imageSourceKind(value) {
  if (value === null || typeof value !== 'object') return null;
  if (isGpuTexture(value)) return 'GPUTexture';
  for (const name of ['VideoFrame', 'HTMLVideoElement', 'ImageBitmap', 'HTMLCanvasElement',
    'OffscreenCanvas', 'HTMLImageElement']) {
    if (isA(value, name)) return name;
  }
  return isImageData(value) ? 'ImageData' : null;
}

// An input's image and the shape the caller gave, if the value is one: the source itself, or
// { data: source, shape }.
function inputImage(value) {
  if (imageSourceKind(value)) return { source: value, shape: undefined };
  if (value && typeof value === 'object' && imageSourceKind(value.data)) {
    return { source: value.data, shape: value.shape };
  }
  return null;
}

// A source's width and height.
function sourceSize(kind, source) {
  switch (kind) {
    case 'VideoFrame': return [source.displayWidth, source.displayHeight];
    case 'HTMLVideoElement': return [source.videoWidth, source.videoHeight];
    case 'HTMLImageElement': return [source.naturalWidth, source.naturalHeight];
    default: return [source.width, source.height];
  }
}

const constraint = (arg, d) => arg.constraints?.find((c) => c.dim === d && c.field === 'extent'
  && c.value !== null)?.value;

// The layout ('grey', 'planar', 'interleaved') and channel count of an argument's shape for a
// w x h image, or an error saying which shapes would do.
function layoutOf(where, arg, shape, w, h, what) {
  if (arg.dimensions === 2) {
    if (shape[0] === w && shape[1] === h) return { layout: 'grey', channels: 1 };
  } else if (arg.dimensions === 3) {
    const interleaved = [3, 4].includes(shape[0]) && shape[1] === w && shape[2] === h;
    const planar = [3, 4].includes(shape[2]) && shape[0] === w && shape[1] === h;
    // A 3 or 4 pixel wide image fits both: the generator's dim(0) extent decides.
    if (interleaved && (!planar || constraint(arg, 0) === shape[0])) {
      return { layout: 'interleaved', channels: shape[0] };
    }
    if (planar) return { layout: 'planar', channels: shape[2] };
  }
  const wanted = arg.dimensions === 2 ? `[${w}, ${h}]`
    : arg.dimensions === 3 ? `[${w}, ${h}, 3 or 4] (planar) or [3 or 4, ${w}, ${h}] (interleaved)`
      : null;
  throw new RangeError(`${where}: ${what} is ${w}x${h} and ${arg.name} has ${arg.dimensions} `
    + `dimensions${wanted ? `: its shape must be ${wanted}, not `
      + `[${(shape ?? []).join(', ')}]` : '; images feed only 2-D (grey) and 3-D (colour) '
      + 'buffers'}`);
}

// The shape an image input takes when the caller gives none: grey [w, h] for 2-D, planar
// [w, h, c] for 3-D unless the generator fixes dim(0) to 3 or 4 (interleaved); c is the
// generator's fixed extent, else 3 (4 needs a shape, or such a constraint).
function defaultShape(arg, w, h) {
  if (arg.dimensions === 2) return [w, h];
  const first = constraint(arg, 0);
  if ([3, 4].includes(first)) return [first, w, h];
  return [w, h, constraint(arg, 2) ?? 3];
}

// -- WGSL ---------------------------------------------------------------------------------------

// How element e's bits decode to a float (an output) and a float encodes to element bits.
function codec(type) {
  return {
    uint8: { read: 'f32((src[e >> 2u] >> ((e & 3u) * 8u)) & 255u) / 255.0',
      write: 'u32(clamp(round(v * 255.0), 0.0, 255.0))' },
    uint16: { read: 'f32((src[e >> 1u] >> ((e & 1u) * 16u)) & 65535u) / 65535.0',
      write: 'u32(clamp(round(v * 65535.0), 0.0, 65535.0))' },
    float32: { read: 'bitcast<f32>(src[e])', write: 'bitcast<u32>(v)' },
  }[type];
}

// Pixel and channel of element e in a layout (w = dims.x, h = dims.y, channels C).
// (Divisions by a runtime value cost tens of instructions: a word's first element is located by
// them, its next ones by stepping.)
function coordinates(layout, channels) {
  if (layout === 'grey') return 'var x = e % dims.x; var y = e / dims.x; var c = 0u;';
  if (layout === 'planar') {
    return 'let n = dims.x * dims.y; var c = e / n; let p = e % n; '
      + 'var x = p % dims.x; var y = p / dims.x;';
  }
  return `var c = e % ${channels}u; let p = e / ${channels}u; var x = p % dims.x; var y = p / dims.x;`;
}

// The element after (x, y, c) in the layout.
function step(layout, channels) {
  if (layout === 'interleaved') {
    return `c++; if (c == ${channels}u) { c = 0u; x++; if (x == dims.x) { x = 0u; y++; } }`;
  }
  return 'x++; if (x == dims.x) { x = 0u; y++; if (y == dims.y) { y = 0u; c++; } }';
}

// The unpack kernel of a uint8 colour input, planar (when no word holds two planes: w * h a
// multiple of 4) or interleaved: one invocation per 4 pixels, each texel loaded once, writing
// the C words they fill (planar: one a plane; interleaved: 4 * C bytes in a row). The
// element-per-word kernel below loads each texel once per channel: on the H200 it cost
// 0.22 ms at 4096x4096x3 where its bytes need about 0.05.
function unpackPixelsWgsl({ layout, channels, external }) {
  const load = external ? 'textureLoad(src, vec2<u32>(x, y))' : 'textureLoad(src, vec2<u32>(x, y), 0)';
  const byte = (k, c) => `u32(clamp(round(t${k}[${c}] * 255.0), 0.0, 255.0))`;
  const stores = [];
  if (layout === 'planar') {
    for (let c = 0; c < channels; c++) {
      stores.push(`dst[${c}u * (n / 4u) + g] = ${[0, 1, 2, 3].map((k) => `(${byte(k, c)} << ${8 * k}u)`).join(' | ')};`);
    }
  } else {
    for (let j = 0; j < channels; j++) {
      const parts = [0, 1, 2, 3].map((i) => {
        const b = j * 4 + i;
        return `(${byte(Math.floor(b / channels), b % channels)} << ${8 * i}u)`;
      });
      stores.push(`if (g * ${channels}u + ${j}u < dims.z / 4u + select(0u, 1u, dims.z % 4u != 0u)) `
        + `{ dst[g * ${channels}u + ${j}u] = ${parts.join(' | ')}; }`);
    }
  }
  const loads = [0, 1, 2, 3].map((k) => `var t${k} = vec4<f32>(0.0); if (q + ${k}u < n) { t${k} = ${load}; }
  x++; if (x == dims.x) { x = 0u; y++; }`).join('\n  ');
  return `
@group(0) @binding(0) var src: ${external ? 'texture_external' : 'texture_2d<f32>'};
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
// dims: width, height, element count, invocations per row of the dispatch grid
@group(0) @binding(2) var<uniform> dims: vec4<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = gid.x + gid.y * dims.w;
  let n = dims.x * dims.y;
  let q = g * 4u;
  if (q >= n) { return; }
  var x = q % dims.x;
  var y = q / dims.x;
  ${loads}
  ${stores.join('\n  ')}
}
`;
}

// The unpack kernel: one invocation per 32-bit word of the input's buffer.
function unpackWgsl({ type, layout, channels, external, single, pixels }) {
  if (pixels) return unpackPixelsWgsl({ layout, channels, external });
  const bits = TYPES[type];
  const perWord = 32 / bits;
  const load = external ? 'textureLoad(src, vec2<u32>(x, y))' : 'textureLoad(src, vec2<u32>(x, y), 0)';
  // A grey input from a colour image is its BT.601 luma as image_data.js computes it (integer
  // weights 77, 150, 29 of 256 on bytes, so uint8 gives the same bytes); a one-channel
  // texture is taken as it is.
  let value;
  if (layout !== 'grey') {
    value = 'let v = t[c];';
  } else if (single) {
    value = 'let v = t.r;';
  } else if (type === 'uint8') {
    value = 'let b = vec3<u32>(round(clamp(t.rgb, vec3<f32>(0.0), vec3<f32>(1.0)) * 255.0)); '
      + 'let v = f32((77u * b.r + 150u * b.g + 29u * b.b + 128u) >> 8u) / 255.0;';
  } else {
    value = 'let v = (77.0 * t.r + 150.0 * t.g + 29.0 * t.b) / 256.0;';
  }
  return `
@group(0) @binding(0) var src: ${external ? 'texture_external' : 'texture_2d<f32>'};
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
// dims: width, height, element count, invocations per row of the dispatch grid
@group(0) @binding(2) var<uniform> dims: vec4<u32>;

fn element(x: u32, y: u32, c: u32) -> u32 {
  let t = ${load};
  ${value}
  return ${codec(type).write};
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  let word = g.x + g.y * dims.w;
  let first = word * ${perWord}u;
  if (first >= dims.z) { return; }
  let e = first;
  ${coordinates(layout, channels)}
  var bits = 0u;
  for (var k = 0u; k < ${perWord}u; k++) {
    if (first + k < dims.z) { bits |= element(x, y, c) << (k * ${bits}u); }
    ${step(layout, channels)}
  }
  dst[word] = bits;
}
`;
}

// The pack pass: a compute kernel storing each pixel into the target where it is a storage
// texture (`storage`, its format), else a triangle over it, each fragment reading its pixel's
// elements. (On the H200 the render pass took 3.1 ms at 4096x4096x3 where the pipeline took
// 0.57: the compute store is the fast path.)
function packWgsl({ type, layout, channels, storage, bytes, format }) {
  const channel = (c) => {
    const e = layout === 'grey' ? 'y * dims.x + x'
      : layout === 'planar' ? `${c}u * dims.x * dims.y + y * dims.x + x`
        : `(y * dims.x + x) * ${channels}u + ${c}u`;
    return `element(${e})`;
  };
  const rgba = layout === 'grey' ? `let v = ${channel(0)}; return vec4<f32>(v, v, v, 1.0);`
    : `return vec4<f32>(${channel(0)}, ${channel(1)}, ${channel(2)}, `
      + `${channels === 4 ? channel(3) : '1.0'});`;
  const common = `
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<uniform> dims: vec4<u32>;

fn element(e: u32) -> f32 { return ${codec(type).read}; }

fn pixel(x: u32, y: u32) -> vec4<f32> {
  ${rgba}
}
`;
  if (bytes) {
    // One invocation per 32-bit word of a 256-byte-aligned row (dims.w words a row): 4 pixels
    // of r8unorm, one of rgba8unorm/bgra8unorm, packed as the texture holds them.
    const word = bytes === 1
      ? 'var bits = 0u; for (var k = 0u; k < 4u; k++) { let x = g.x * 4u + k; '
        + 'if (x < dims.x) { bits |= u32(round(clamp(pixel(x, g.y).r, 0.0, 1.0) * 255.0)) << (k * 8u); } }'
      : `let v = pixel(g.x, g.y); let bits = pack4x8unorm(${format === 'bgra8unorm' ? 'v.bgra' : 'v'});`;
    return `${common}
@group(0) @binding(2) var<storage, read_write> rows: array<u32>;

@compute @workgroup_size(64)
fn pack(@builtin(global_invocation_id) g: vec3<u32>) {
  if (g.x * ${4 / bytes}u >= dims.x || g.y >= dims.y) { return; }
  ${word}
  rows[g.y * dims.w + g.x] = bits;
}
`;
  }
  if (storage) {
    return `${common}
@group(0) @binding(2) var dst: texture_storage_2d<${storage}, write>;

@compute @workgroup_size(16, 16)
fn pack(@builtin(global_invocation_id) g: vec3<u32>) {
  if (g.x >= dims.x || g.y >= dims.y) { return; }
  textureStore(dst, vec2<u32>(g.x, g.y), pixel(g.x, g.y));
}
`;
  }
  return `${common}
@vertex
fn vertex(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
  let p = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
  return vec4<f32>(p * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fragment(@builtin(position) at: vec4<f32>) -> @location(0) vec4<f32> {
  return pixel(u32(at.x), u32(at.y));
}
`;
}

// -- the runtime ---------------------------------------------------------------------------------

// Whether `value` is a GPUBuffer (webgpu.js's isGpuBuffer, by shape).
const isBuffer = (value) => value !== null && typeof value === 'object'
  && typeof value.mapAsync === 'function' && typeof value.usage === 'number';

// A command encoder of its own, with the recorder calls of WebGPURuntime (computePass(),
// commandEncoder()) and submit(): for image kernels submitted apart from a run.
function ownEncoder(device, label) {
  const encoder = device.createCommandEncoder({ label });
  let pass = null;
  return {
    computePass: () => (pass ??= encoder.beginComputePass()),
    commandEncoder: () => {
      pass?.end();
      pass = null;
      return encoder;
    },
    submit: () => {
      pass?.end();
      pass = null;
      device.queue.submit([encoder.finish()]);
    },
  };
}

// The unpack kernels ([pipeline, bind group, workgroups x, y]) into `recorder`'s compute pass.
function recordUnpacks(recorder, unpacks) {
  if (!unpacks.length) return;
  const pass = recorder.computePass();
  for (const [pipeline, group, gx, gy] of unpacks) {
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(gx, gy);
  }
}

/** A wrong kind of input or output for where it was passed. */
export class ImageKindError extends TypeError {
  constructor(message) {
    super(message);
    this.name = 'ImageKindError';
  }
}

/**
 * The image inputs and outputs of one pipeline: its kernels, and the buffers and textures it
 * reuses from run to run (one of each per argument, remade when the size changes).
 */
export class GpuImages {
  constructor() {
    this.device = null;
    this.pipelines = new Map();  // WGSL key -> compute or render pipeline
    this.buffers = new Map();    // argument name -> { buffer, dims, texture }
    this.checked = new WeakSet();  // GPUTextures and canvas contexts a run has used without error
    this.lateError = null;       // a refusal a run did not wait for, once WebGPU has said it
  }

  /**
   * Before a run: null when no argument is an image (decided at once, without a promise);
   * else a promise of { inputs, outputs, encode, pack, present, settle } where the image
   * inputs and outputs are replaced by GPUBuffers. Once every texture and canvas has been
   * through a run (WebGPU's verdict on it awaited), the unpack and pack kernels go into the
   * run's own command encoder and submission: `encode(runtime)` (after runtime.bind())
   * records the unpack kernels, `pack(runtime)` (runtime.finish's, before its submit) the pack
   * kernels; before that, the inputs are unpacked in a submission of their own, now, and
   * `present(out)` (after the run is submitted) packs the outputs in another. `present(out)`
   * puts the targets in `out` and returns a promise that rejects if WebGPU refused any of it;
   * `settle()` (after the run's submit, or when it fails) closes the error scope of the
   * shared submission, whose verdict a later run reports.
   */
  stage(where, pipeline, inputs, outputs) {
    const late = this.lateError;
    this.lateError = null;
    if (late) throw new Error(`${late.message} (in an earlier run)`);
    const single = pipeline._outputs.length === 1;
    const specs = single ? { [pipeline._outputs[0].name]: outputs } : outputs;
    let images = null;
    for (const arg of pipeline._inputs) {
      const value = arg.kind !== 'scalar' && inputs && typeof inputs === 'object'
        ? inputs[arg.name] : null;
      // Typed arrays and GPUBuffers (the usual run) are passed over at once.
      if (!value || (value.shape !== undefined && (ArrayBuffer.isView(value.data)
        || isBuffer(value.data)))) continue;
      const image = inputImage(value);
      if (image) (images ??= []).push([arg, image]);
    }
    let targets = null;
    for (const arg of pipeline._outputs) {
      const data = specs?.[arg.name]?.data;
      if (data === undefined || ArrayBuffer.isView(data) || isBuffer(data)) continue;
      if (isCanvasContext(data) || isGpuTexture(data)) (targets ??= []).push([arg, specs[arg.name]]);
      else if (imageSourceKind(data)) {
        throw new ImageKindError(`${where}: output ${arg.name} cannot be written to a `
          + `${imageSourceKind(data)}; an output's data may be a GPUCanvasContext (a canvas's `
          + "getContext('webgpu'), configured) or a GPUTexture with RENDER_ATTACHMENT usage, or a "
          + 'GPUBuffer, or left out for a typed array');
      }
    }
    if (!images && !targets) return null;
    return this._stage(where, pipeline, images ?? [], targets ?? [], inputs, specs, single);
  }

  async _stage(where, pipeline, images, targets, inputs, specs, single) {
    for (const [arg, image] of images) this._checkArgument(where, pipeline, arg, imageSourceKind(image.source));
    for (const [arg, spec] of targets) {
      this._checkArgument(where, pipeline, arg, isCanvasContext(spec.data) ? 'GPUCanvasContext' : 'GPUTexture');
    }
    const { device } = pipeline._gpu;
    if (device !== this.device) {
      this.destroy();  // a new device (the old one was lost): nothing made on the old one works
      this.device = device;
    }
    await this._readVideo(images);
    const inputNames = images.map(([a]) => a.name).join(', ');
    const targetNames = targets.map(([a]) => a.name).join(', ');
    const inputRefused = (error) => new Error(`${where}: WebGPU refused the image input `
      + `${inputNames} (a texture must be of p.device, with TEXTURE_BINDING usage): `
      + error.message);
    const targetRefused = (error) => new Error(`${where}: WebGPU refused the output target `
      + `${targetNames} (a texture or canvas of p.device, with RENDER_ATTACHMENT usage): `
      + error.message);
    // Waiting for WebGPU's verdict costs a round trip (on dawn.node, until the queue is idle),
    // and only a texture or canvas of another device can be refused: a run waits for it the
    // first time it sees such an object, and later runs leave it to the next run to report.
    const fresh = [...images.map(([, image]) => image.source).filter(isGpuTexture),
      ...targets.map(([, spec]) => spec.data)].filter((o) => !this.checked.has(o));
    const freshInput = fresh.some((o) => images.some(([, image]) => image.source === o));
    const freshTexture = fresh.some((o) => isGpuTexture(o) && targets.some(([, spec]) => spec.data === o));
    // Nothing new to wait for: the image kernels join the run's submission, under one error
    // scope (open from here to settle()).
    const shared = !fresh.length;
    device.pushErrorScope('validation');
    let scope = null;
    let open = true;
    const close = () => {
      if (open) {
        open = false;
        scope = device.popErrorScope();
      }
      return scope;
    };
    let staged;
    let unpacks;
    const newSpecs = { ...specs };
    const packs = [];
    try {
      ({ staged, unpacks } = this._stageInputs(where, images, inputs));
      if (!shared) {
        if (unpacks.length) {
          const own = ownEncoder(device, 'webhal image inputs');
          recordUnpacks(own, unpacks);
          own.submit();
        }
        close();
      }
      for (const [arg, spec] of targets) {
        const { buffer, job } = this._prepareOutput(where, arg, spec);
        newSpecs[arg.name] = { shape: spec.shape, data: buffer };
        packs.push([arg, spec.data, job]);
      }
    } catch (e) {
      close();
      throw e;
    }
    const inputScope = shared ? null : scope;
    const settle = () => {
      if (!shared || !open) return;
      // Not awaited: the next run reports what WebGPU said.
      close().then((error) => {
        if (!error) return;
        this.lateError ??= !targets.length ? inputRefused(error)
          : !images.length ? targetRefused(error)
            : new Error(`${where}: WebGPU refused the image input ${inputNames} or the output `
              + `target ${targetNames}: ${error.message}`);
      }, () => {});
    };
    // A canvas shows the texture of getCurrentTexture() when the task that drew it ends, and
    // from then on a page can no longer read it (drawImage gives transparent pixels): a run
    // drawing only canvases resolves in the task that drew, so that its caller may still read
    // or copy them, and a canvas's refusal is reported by the next run.
    const present = async (out) => {
      if (shared) {
        for (const [arg, target] of packs) out[arg.name] = { data: target, shape: [...out[arg.name].shape] };
        return;
      }
      if (freshInput) {
        const error = await inputScope;
        if (error) throw inputRefused(error);
      }
      let outputScope;
      device.pushErrorScope('validation');
      try {
        if (packs.length) {
          const own = ownEncoder(device, 'webhal image outputs');
          for (const [arg, target, job] of packs) {
            job(own);
            out[arg.name] = { data: target, shape: [...out[arg.name].shape] };
          }
          own.submit();
        }
      } finally {
        outputScope = device.popErrorScope();
      }
      if (freshTexture) {
        const error = await outputScope;
        if (error) throw targetRefused(error);
      }
      for (const o of fresh) this.checked.add(o);
      // Not awaited: the next run would wait for this one's work to finish.
      Promise.all([freshInput ? null : inputScope, freshTexture ? null : outputScope])
        .then(([inError, outError]) => {
          const error = inError ? inputRefused(inError) : outError && targetRefused(outError);
          if (error) this.lateError ??= error;
        }, () => {});
    };
    return {
      inputs: staged,
      outputs: single ? newSpecs[pipeline._outputs[0].name] : newSpecs,
      encode: (runtime) => {
        if (shared && unpacks.length) runtime.recordImages((rt) => recordUnpacks(rt, unpacks));
      },
      pack: shared && packs.length ? (runtime) => {
        for (const [, , job] of packs) job(runtime);
      } : null,
      present,
      settle,
    };
  }

  /** Release the buffers and textures made here (not the caller's). */
  destroy() {
    for (const b of this.buffers.values()) {
      b.buffer.destroy();
      b.dims.destroy();
      b.texture?.destroy();
      b.rows?.destroy();
    }
    this.buffers.clear();
    this.pipelines.clear();
  }

  _checkArgument(where, pipeline, arg, kind) {
    const role = arg.output ? 'output' : 'input';
    const instead = arg.output
      ? `pass { shape } for a ${ARRAYS[arg.type].name} and draw it with webhal's toImageData`
      : `pass { data: ${ARRAYS[arg.type].name}, shape } (webhal's fromImageData makes one from `
        + 'an ImageData)';
    if (!pipeline._gpu) {
      throw new ImageKindError(`${where}: ${role} ${arg.name} is ${a(kind)}, which only the webgpu `
        + `variant takes; this pipeline runs the ${pipeline.variant} variant: ${instead}`);
    }
    if (!pipeline._deviceArguments.has(arg.name)) {
      throw new ImageKindError(`${where}: ${role} ${arg.name} cannot be ${a(kind)}: the pipeline's `
        + `CPU code ${arg.output ? 'writes' : 'reads'} it, and images stay on the GPU; ${instead}`);
    }
    if (!(arg.type in TYPES)) {
      throw new ImageKindError(`${where}: ${role} ${arg.name} is ${arg.type}; images convert to `
        + `and from ${Object.keys(TYPES).join(', ')} only: ${instead}`);
    }
  }

  // The argument's GPUBuffer (and uniform of its dimensions), reused while its size holds.
  _slot(name, bytes, textureSize) {
    let slot = this.buffers.get(name);
    const size = Math.max(4, Math.ceil(bytes / 4) * 4);
    if (!slot || slot.buffer.size !== size) {
      if (slot) {
        slot.buffer.destroy();
        slot.dims.destroy();
        slot.texture?.destroy();
        slot.rows?.destroy();
      }
      slot = {
        buffer: this.device.createBuffer({ size, label: `webhal image ${name}`,
          usage: BUFFER.STORAGE | BUFFER.COPY_SRC | BUFFER.COPY_DST }),
        dims: this.device.createBuffer({ size: 16, usage: BUFFER.UNIFORM | BUFFER.COPY_DST }),
        texture: null,
      };
      this.buffers.set(name, slot);
    }
    if (textureSize) {
      const [w, h] = textureSize;
      if (!slot.texture || slot.texture.width !== w || slot.texture.height !== h) {
        slot.texture?.destroy();
        // copyExternalImageToTexture wants RENDER_ATTACHMENT on its destination.
        slot.texture = this.device.createTexture({ size: [w, h], format: 'rgba8unorm',
          usage: TEXTURE.TEXTURE_BINDING | TEXTURE.COPY_DST | TEXTURE.RENDER_ATTACHMENT });
      }
    }
    return slot;
  }

  _pipeline(key, make) {
    let p = this.pipelines.get(key);
    if (!p) {
      p = make();
      this.pipelines.set(key, p);
    }
    return p;
  }

  // The image inputs copied to the GPU (copies and writes on the queue now) and their
  // GPUBuffers in place of them; `unpacks`, the kernels that unpack them, to record.
  _stageInputs(where, images, inputs) {
    const unpacks = [];
    if (!images.length) return { staged: inputs, unpacks };
    const staged = { ...inputs };
    const device = this.device;
    for (const [arg, { source, shape: given }] of images) {
      const kind = imageSourceKind(source);
      const [w, h] = sourceSize(kind, source);
      if (!(w > 0 && h > 0)) {
        throw new RangeError(`${where}: input ${arg.name} is ${a(kind)} of ${w}x${h} pixels`
          + (kind === 'HTMLVideoElement' ? ": the video has no frame yet (wait for its 'loadeddata' "
            + 'event, or requestVideoFrameCallback)' : ''));
      }
      const shape = given ?? defaultShape(arg, w, h);
      const { layout, channels } = layoutOf(where, arg, shape, w, h, `input ${arg.name}'s ${kind}`);
      const count = shape.reduce((n, e) => n * e, 1);
      let resource;
      let single = false;
      let external = false;
      const slot = this._slot(arg.name, count * TYPES[arg.type] / 8,
        kind === 'GPUTexture' ? null : [w, h]);
      if (kind === 'HTMLVideoElement' || kind === 'VideoFrame') {
        if (this.videoPath === 'external') {
          resource = device.importExternalTexture({ source });
          external = true;
        } else {
          device.queue.copyExternalImageToTexture({ source }, { texture: slot.texture }, [w, h]);
          resource = slot.texture.createView();
        }
      } else if (kind === 'GPUTexture') {
        resource = this._textureView(where, arg, source, layout);
        single = ONE_CHANNEL.has(source.format);
      } else if (kind === 'ImageData') {
        // Its bytes are on the CPU already: one upload, no conversion there.
        device.queue.writeTexture({ texture: slot.texture }, source.data,
          { bytesPerRow: w * 4, rowsPerImage: h }, [w, h]);
        resource = slot.texture.createView();
      } else {
        device.queue.copyExternalImageToTexture({ source }, { texture: slot.texture }, [w, h]);
        resource = slot.texture.createView();
      }
      if (layout !== 'grey' && single) {
        throw new ImageKindError(`${where}: input ${arg.name} is ${a(source.format)} texture, one `
          + 'channel, for a colour input: pass an rgba8unorm (or rgba float) texture, or give '
          + `${arg.name} 2 dimensions`);
      }
      // uint8 colour: a kernel invocation per 4 pixels (unpackPixelsWgsl), else per word.
      const pixels = arg.type === 'uint8' && layout !== 'grey' && !single
        && (layout === 'interleaved' || (w * h) % 4 === 0);
      const words = pixels ? Math.ceil((w * h) / 4) : Math.ceil(count / (32 / TYPES[arg.type]));
      const groups = Math.ceil(words / 64);
      const gx = Math.min(groups, 32768);
      const gy = Math.ceil(groups / gx);
      const dims = [w, h, count, gx * 64];
      if (!slot.dimsSet || dims.some((v, i) => v !== slot.dimsSet[i])) {
        device.queue.writeBuffer(slot.dims, 0, new Uint32Array(dims));
        slot.dimsSet = dims;
      }
      const spec = { type: arg.type, layout, channels, external, single, pixels };
      const pipeline = this._pipeline(`unpack ${JSON.stringify(spec)}`, () => {
        const module = device.createShaderModule({ code: unpackWgsl(spec), label: 'webhal unpack' });
        return device.createComputePipeline({ layout: this._unpackLayout(external),
          compute: { module, entryPoint: 'main' } });
      });
      const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [
        { binding: 0, resource }, { binding: 1, resource: { buffer: slot.buffer } },
        { binding: 2, resource: { buffer: slot.dims } }] });
      unpacks.push([pipeline, group, gx, gy]);
      staged[arg.name] = { data: slot.buffer, shape };
    }
    // (copyExternalImageToTexture has taken the bitmaps' pixels)
    for (const [, image] of images) if (image.made) image.source.close();
    return { staged, unpacks };
  }

  // How video frames reach the GPU here, found on the first one: as an external texture (no
  // copy), else copied as other images are, else through an ImageBitmap. Chromium on
  // SwiftShader (headless) refuses both the import and the copy of every video frame
  // ("Failed to import texture from video"), but makes ImageBitmaps of them. The bitmaps are
  // made before any external texture is imported: those expire when the task ends.
  async _readVideo(images) {
    for (const [, image] of images) {
      const kind = imageSourceKind(image.source);
      if (kind !== 'HTMLVideoElement' && kind !== 'VideoFrame') continue;
      const [w, h] = sourceSize(kind, image.source);
      if (!(w > 0 && h > 0)) continue;  // _stageInputs says why
      if (this.videoPath === undefined) this.videoPath = this._probeVideo(image.source);
      if (this.videoPath === 'bitmap') {
        image.source = await createImageBitmap(image.source);
        image.made = true;
      }
    }
  }

  _probeVideo(source) {
    const refused = (e) => {
      if (e?.name !== 'OperationError') throw e;
      return true;
    };
    try {
      this.device.importExternalTexture({ source });
      return 'external';
    } catch (e) {
      refused(e);
    }
    const texture = this.device.createTexture({ size: [1, 1], format: 'rgba8unorm',
      usage: TEXTURE.TEXTURE_BINDING | TEXTURE.COPY_DST | TEXTURE.RENDER_ATTACHMENT });
    try {
      this.device.queue.copyExternalImageToTexture({ source }, { texture }, [1, 1]);
      return 'copy';
    } catch (e) {
      refused(e);
      return 'bitmap';
    } finally {
      texture.destroy();
    }
  }

  // An explicit layout: 'auto' would ask for a filterable float texture, which r32float and
  // rgba32float are not.
  _unpackLayout(external) {
    return this._pipeline(`layout ${external}`, () => this.device.createPipelineLayout({
      bindGroupLayouts: [this.device.createBindGroupLayout({ entries: [
        external ? { binding: 0, visibility: STAGE.COMPUTE, externalTexture: {} }
          : { binding: 0, visibility: STAGE.COMPUTE, texture: { sampleType: 'unfilterable-float' } },
        { binding: 1, visibility: STAGE.COMPUTE, buffer: { type: 'storage' } },
        { binding: 2, visibility: STAGE.COMPUTE, buffer: { type: 'uniform' } }] })] }));
  }

  _textureView(where, arg, texture, layout) {
    const { format } = texture;
    if (texture.dimension && texture.dimension !== '2d') {
      throw new ImageKindError(`${where}: input ${arg.name} is a ${texture.dimension} texture; `
        + 'pass a 2d one');
    }
    if (!(texture.usage & TEXTURE.TEXTURE_BINDING)) {
      throw new ImageKindError(`${where}: the GPUTexture of input ${arg.name} needs the usage `
        + 'TEXTURE_BINDING (GPUTextureUsage.TEXTURE_BINDING)');
    }
    if (!UNORM.has(format) && !FLOAT.has(format)) {
      throw new ImageKindError(`${where}: input ${arg.name} is ${a(format)} texture; images are `
        + `read from ${[...UNORM, ...FLOAT].join(', ')} textures`);
    }
    if (FLOAT.has(format) && arg.type !== 'float32') {
      throw new ImageKindError(`${where}: input ${arg.name} is ${arg.type} and its texture is `
        + `${format}: float textures feed float inputs; pass an ${layout === 'grey' ? 'r8unorm'
          : 'rgba8unorm'} texture`);
    }
    return texture.createView();
  }

  // The output's GPUBuffer, and the job that packs it into its target after the run.
  _prepareOutput(where, arg, spec) {
    const { shape } = spec;
    const device = this.device;
    const count = Array.isArray(shape) ? shape.reduce((n, e) => n * e, 1) : 0;
    const slot = this._slot(arg.name, count * TYPES[arg.type] / 8, null);
    // Records the pack kernel (or render pass) through `recorder` (computePass() and
    // commandEncoder(), as WebGPURuntime's).
    const job = (recorder) => {
      const context = isCanvasContext(spec.data) ? spec.data : null;
      let texture = spec.data;
      if (context) {
        const configured = context.getConfiguration?.();
        if (configured && configured.device !== device) {
          throw new ImageKindError(`${where}: the canvas of output ${arg.name} is configured for `
            + 'another GPUDevice: configure it with { device: p.device }');
        }
        try {
          texture = context.getCurrentTexture();
        } catch (e) {
          throw new ImageKindError(`${where}: the GPUCanvasContext of output ${arg.name} is not `
            + `configured: call context.configure({ device: p.device, format }) first (${e.message})`);
        }
      }
      const { width: w, height: h, format } = texture;
      const { layout, channels } = layoutOf(where, arg, shape, w, h, `the target of output ${arg.name}`);
      // uint8 bytes that are the texture's already (grey into r8unorm, 4 interleaved channels
      // into rgba8unorm) in rows of a multiple of 256 bytes: copied in, no kernel.
      const texel = { r8unorm: 1, rgba8unorm: 4 }[format];
      if (arg.type === 'uint8' && texture.usage & TEXTURE.COPY_DST && (w * texel) % 256 === 0
          && (texel === 1 ? layout === 'grey' : layout === 'interleaved' && channels === 4)) {
        recorder.commandEncoder().copyBufferToTexture({ buffer: slot.buffer, bytesPerRow: w * texel,
          rowsPerImage: h }, { texture }, [w, h]);
        return;
      }
      // The fast paths, both a compute kernel: a store into a storage texture, else bytes
      // into 256-byte rows copied into the target (COPY_DST); else a render pass (on the H200
      // 3.1 ms at 4096x4096 where the kernels take 0.3).
      const storable = STORABLE.has(format)
        || (format === 'bgra8unorm' && device.features?.has('bgra8unorm-storage'));
      const storage = texture.usage & TEXTURE.STORAGE_BINDING && storable ? format : null;
      const bytes = !storage && texture.usage & TEXTURE.COPY_DST ? BYTE_FORMATS[format] ?? 0 : 0;
      if (!storage && !bytes && !(texture.usage & TEXTURE.RENDER_ATTACHMENT)) {
        throw new ImageKindError(`${where}: the ${context ? 'canvas' : 'GPUTexture'} of output `
          + `${arg.name} needs the usage RENDER_ATTACHMENT, or STORAGE_BINDING with a format of `
          + `${[...STORABLE].join(', ')}, or COPY_DST with one of `
          + `${Object.keys(BYTE_FORMATS).join(', ')} (these two packed by a compute kernel, the faster)`);
      }
      const rowBytes = Math.ceil((w * bytes) / 256) * 256;
      if (bytes && slot.rows?.size !== rowBytes * h) {
        slot.rows?.destroy();
        slot.rows = device.createBuffer({ size: rowBytes * h, label: `webhal image ${arg.name} rows`,
          usage: BUFFER.STORAGE | BUFFER.COPY_SRC });
      }
      const dims = [w, h, count, rowBytes / 4];
      if (!slot.dimsSet || dims.some((v, i) => v !== slot.dimsSet[i])) {
        device.queue.writeBuffer(slot.dims, 0, new Uint32Array(dims));
        slot.dimsSet = dims;
      }
      const key = { type: arg.type, layout, channels, storage, format, bytes };
      const pipeline = this._pipeline(`pack ${JSON.stringify(key)}`, () => {
        const module = device.createShaderModule({ code: packWgsl(key), label: 'webhal pack' });
        if (storage || bytes) return device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'pack' } });
        return device.createRenderPipeline({ layout: 'auto',
          vertex: { module, entryPoint: 'vertex' },
          fragment: { module, entryPoint: 'fragment', targets: [{ format }] },
          primitive: { topology: 'triangle-list' } });
      });
      const entries = [{ binding: 0, resource: { buffer: slot.buffer } },
        { binding: 1, resource: { buffer: slot.dims } }];
      if (storage) entries.push({ binding: 2, resource: texture.createView() });
      if (bytes) entries.push({ binding: 2, resource: { buffer: slot.rows } });
      const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
      if (bytes) {
        const pass = recorder.computePass();
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, group);
        pass.dispatchWorkgroups(Math.ceil(w * bytes / 4 / 64), h);
        recorder.commandEncoder().copyBufferToTexture({ buffer: slot.rows, bytesPerRow: rowBytes,
          rowsPerImage: h }, { texture }, [w, h]);
      } else if (storage) {
        const pass = recorder.computePass();
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, group);
        pass.dispatchWorkgroups(Math.ceil(w / 16), Math.ceil(h / 16));
      } else {
        const pass = recorder.commandEncoder().beginRenderPass({ colorAttachments: [{
          view: texture.createView(), loadOp: 'clear', storeOp: 'store', clearValue: [0, 0, 0, 1] }] });
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, group);
        pass.draw(3);
        pass.end();
      }
    };
    // The target's size must be known before the run, to check the output's shape.
    const target = isCanvasContext(spec.data) ? spec.data.canvas : spec.data;
    if (target && Number.isInteger(target.width)) {
      layoutOf(where, arg, shape, target.width, target.height, `the target of output ${arg.name}`);
    }
    return { buffer: slot.buffer, job };
  }
}

/**
 * The buffer an image input of `type` (uint8, uint16, float32) and `dimensions` (2: grey; 3:
 * planar, or the layout `shape` says) would get from `source`, read back from the GPU as
 * { data, shape }: the pixels a webgpu pipeline reads, converted by the GPU as its runs convert
 * them (a camera's YUV frame can differ there from what a 2D canvas draws). For checks and
 * tests; a run does not read anything back.
 */
export async function readImage(device, source, { type = 'uint8', dimensions = 3, shape } = {}) {
  const where = 'webhal.readImage';
  const kind = imageSourceKind(source);
  if (!kind) throw new ImageKindError(`${where}: source must be an image source, not ${String(source)}`);
  if (!(type in TYPES)) throw new RangeError(`${where}: type must be one of ${Object.keys(TYPES).join(', ')}`);
  const images = new GpuImages();
  images.device = device;
  const arg = { name: 'image', type, dimensions, kind: 'buffer', output: false };
  const image = { source, shape };
  try {
    await images._readVideo([[arg, image]]);
    const { staged, unpacks } = images._stageInputs(where, [[arg, image]], {});
    const { data: buffer, shape: got } = staged.image;
    const count = got.reduce((n, e) => n * e, 1);
    const staging = device.createBuffer({ size: buffer.size, usage: 0x1 | BUFFER.COPY_DST });
    const own = ownEncoder(device, 'webhal readImage');
    recordUnpacks(own, unpacks);
    own.commandEncoder().copyBufferToBuffer(buffer, 0, staging, 0, buffer.size);
    own.submit();
    await staging.mapAsync(0x1);  // GPUMapMode.READ
    const data = new ARRAYS[type](count);
    new Uint8Array(data.buffer).set(new Uint8Array(staging.getMappedRange(), 0, data.byteLength));
    staging.unmap();
    staging.destroy();
    return { data, shape: got };
  } finally {
    images.destroy();
  }
}
