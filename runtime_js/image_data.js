// Canvas pixels to pipeline buffers and back. A canvas ImageData is RGBA bytes, row by row,
// channel innermost; pipeline buffers are { data, shape } dense with x innermost (Halide's
// order), so the usual x, y, c input is channel planes one after another. No dependencies,
// and no use of ImageData beyond constructing one when the engine has it (Node 20 has not).

const LAYOUTS = ['planar', 'rgb', 'interleaved', 'interleaved-rgb', 'gray'];
const BYTE_ARRAYS = [Uint8Array, Uint8ClampedArray];
const FLOAT_ARRAYS = [Float32Array, Float64Array];

const quoted = (values) => values.map((v) => `'${v}'`).join(', ');
const describe = (value) => (value === null ? 'null'
  : typeof value === 'object' ? value.constructor?.name ?? 'object' : typeof value);
const isExtent = (n) => Number.isInteger(n) && n >= 0;

function checkLayout(where, layout) {
  if (!LAYOUTS.includes(layout)) {
    throw new RangeError(`${where}: layout must be one of ${quoted(LAYOUTS)}, not `
      + `${typeof layout === 'string' ? `'${layout}'` : String(layout)}`);
  }
}

function checkImage(where, image) {
  const shape = '{ data: Uint8ClampedArray, width, height } (as a canvas ImageData)';
  if (image === null || typeof image !== 'object') {
    throw new TypeError(`${where}: image must be ${shape}, not ${describe(image)}`);
  }
  const { data, width, height } = image;
  // Uint8Array is accepted too: the same bytes, as read from a file or a wasm heap.
  if (!BYTE_ARRAYS.some((A) => data instanceof A)) {
    throw new TypeError(`${where}: image.data must be a Uint8ClampedArray (or Uint8Array) of `
      + `RGBA bytes, not ${describe(data)}`);
  }
  if (!isExtent(width) || !isExtent(height)) {
    throw new TypeError(`${where}: image.width and image.height must be non-negative integers, `
      + `not ${String(width)} and ${String(height)}`);
  }
  if (data.length !== width * height * 4) {
    throw new TypeError(`${where}: image.data has ${data.length} bytes, but a ${width}x${height} `
      + `RGBA image needs width * height * 4 = ${width * height * 4}`);
  }
  return image;
}

/**
 * A canvas ImageData (or any { data: Uint8ClampedArray, width, height }) as a uint8 pipeline
 * input, { data: Uint8Array, shape }, x first:
 * - 'planar' (default): shape [width, height, 4], the R, G, B and A planes one after another.
 * - 'rgb': planar without alpha, shape [width, height, 3].
 * - 'interleaved': shape [4, width, height] (c innermost), a view over the image's own bytes,
 *   not a copy: writes to either show in the other.
 * - 'interleaved-rgb': shape [3, width, height], R, G, B of each pixel together (alpha dropped),
 *   for generators whose dimensions are (c, x, y) with dim(0) == 3.
 * - 'gray': shape [width, height], BT.601 luma (alpha ignored).
 *
 * @param {{ data: Uint8ClampedArray, width: number, height: number }} image
 * @param {{ layout?: 'planar' | 'rgb' | 'interleaved' | 'interleaved-rgb' | 'gray' }} [options]
 * @returns {{ data: Uint8Array, shape: number[] }}
 * @throws {TypeError} when `image` is not RGBA bytes of width * height * 4
 * @throws {RangeError} when `layout` is none of the above
 */
export function fromImageData(image, options = {}) {
  const where = 'webhal.fromImageData';
  const { layout = 'planar' } = options ?? {};
  checkLayout(where, layout);
  const { data, width, height } = checkImage(where, image);
  const n = width * height;
  if (layout === 'interleaved') {
    return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), shape: [4, width, height] };
  }
  if (layout === 'interleaved-rgb') {
    const out = new Uint8Array(n * 3);
    for (let p = 0, i = 0, o = 0; p < n; p++, i += 4, o += 3) {
      out[o] = data[i];
      out[o + 1] = data[i + 1];
      out[o + 2] = data[i + 2];
    }
    return { data: out, shape: [3, width, height] };
  }
  if (layout === 'gray') {
    const out = new Uint8Array(n);
    // Y = (77*R + 150*G + 29*B + 128) >> 8: the BT.601 weights (0.299, 0.587, 0.114) scaled
    // by 256, summing to 256 so white stays 255; the + 128 rounds to nearest. Integer math
    // gives the same bytes on every engine, as a pipeline computing it would.
    for (let p = 0, i = 0; p < n; p++, i += 4) {
      out[p] = (77 * data[i] + 150 * data[i + 1] + 29 * data[i + 2] + 128) >> 8;
    }
    return { data: out, shape: [width, height] };
  }
  const channels = layout === 'rgb' ? 3 : 4;
  const out = new Uint8Array(n * channels);
  for (let c = 0; c < channels; c++) {
    const plane = c * n;
    for (let p = 0, i = c; p < n; p++, i += 4) out[plane + p] = data[i];
  }
  return { data: out, shape: [width, height, channels] };
}

// The layout a shape stands for, when the caller names none. [4, w, h] and [3, w, h] are never
// guessed: they look like a [w, h, c] image 3 or 4 pixels wide (and [4, w, 3] is read as one),
// so interleaved data must say so.
function defaultLayout(where, shape) {
  if (shape.length === 2) return 'gray';
  if (shape.length === 3 && shape[2] === 3) return 'rgb';
  if (shape.length === 3 && shape[2] === 4) return 'planar';
  throw new RangeError(`${where}: cannot tell the layout of shape [${shape.join(', ')}]; `
    + `[w, h] is 'gray', [w, h, 3] 'rgb', [w, h, 4] 'planar'; for [4, w, h] pass `
    + `{ layout: 'interleaved' }, for [3, w, h] { layout: 'interleaved-rgb' }`);
}

// Width, height and channels of a buffer in `layout`, or a RangeError saying what was wanted.
function geometry(where, layout, shape) {
  const wanted = { gray: '[width, height]', rgb: '[width, height, 3]',
    planar: '[width, height, 4]', interleaved: '[4, width, height]',
    'interleaved-rgb': '[3, width, height]' }[layout];
  const leading = { interleaved: 4, 'interleaved-rgb': 3 }[layout];
  const fits = layout === 'gray' ? shape.length === 2
    : shape.length === 3 && (leading ? shape[0] === leading
      : shape[2] === (layout === 'rgb' ? 3 : 4));
  if (!fits) {
    throw new RangeError(`${where}: layout '${layout}' needs shape ${wanted}, not `
      + `[${shape.join(', ')}]`);
  }
  if (leading) return [shape[1], shape[2], leading];
  return [shape[0], shape[1], layout === 'gray' ? 1 : shape[2]];
}

// Float samples in [0, 1] to bytes: scaled and rounded here (half up, as Math.round does;
// Uint8ClampedArray alone would round half to even), clamped (NaN to 0) by the store.
function floatBytes(data) {
  const out = new Uint8ClampedArray(data.length);
  for (let i = 0; i < data.length; i++) out[i] = Math.round(data[i] * 255);
  return out;
}

/**
 * A pipeline buffer { data, shape } (as `p.run` returns) as an ImageData: a real one when the
 * engine has `ImageData`, else { data: Uint8ClampedArray, width, height, colorSpace: 'srgb' }.
 * The layout is read from the shape unless given: [w, h] 'gray' (R = G = B, A = 255),
 * [w, h, 3] 'rgb' (A = 255), [w, h, 4] 'planar'; [4, w, h] needs { layout: 'interleaved' }
 * and [3, w, h] { layout: 'interleaved-rgb' } (A = 255); without it, [4, w, 3] would be read
 * as an 'rgb' image 4 wide.
 * Uint8Array and Uint8ClampedArray data are copied as they are; Float32Array and Float64Array
 * data are taken as [0, 1], scaled by 255, rounded and clamped.
 *
 * @param {{ data: Uint8Array | Uint8ClampedArray | Float32Array | Float64Array, shape: number[] }} buffer
 * @param {{ layout?: 'planar' | 'rgb' | 'interleaved' | 'interleaved-rgb' | 'gray' }} [options]
 * @returns {ImageData | { data: Uint8ClampedArray, width: number, height: number, colorSpace: 'srgb' }}
 * @throws {TypeError} when `buffer` is not { data, shape } or its data is of another type
 * @throws {RangeError} when the layout is unknown, or does not fit the shape, or the shape
 *   does not fit the data
 */
export function toImageData(buffer, options = {}) {
  const where = 'webhal.toImageData';
  if (buffer === null || typeof buffer !== 'object' || !('data' in buffer) || !('shape' in buffer)) {
    throw new TypeError(`${where}: buffer must be { data, shape } (as p.run returns), not `
      + `${describe(buffer)}`);
  }
  const { data, shape } = buffer;
  const isBytes = BYTE_ARRAYS.some((A) => data instanceof A);
  if (!isBytes && !FLOAT_ARRAYS.some((A) => data instanceof A)) {
    throw new TypeError(`${where}: buffer.data is a ${describe(data)}; accepted are `
      + 'Uint8Array and Uint8ClampedArray (0 to 255), Float32Array and Float64Array (0 to 1)');
  }
  if (!Array.isArray(shape) || !shape.every(isExtent)) {
    throw new RangeError(`${where}: buffer.shape must be an array of non-negative integers `
      + `(x first), not ${JSON.stringify(shape)}`);
  }
  let { layout } = options ?? {};
  if (layout === undefined) layout = defaultLayout(where, shape);
  checkLayout(where, layout);
  const [width, height, channels] = geometry(where, layout, shape);
  const count = shape.reduce((a, b) => a * b, 1);
  if (data.length !== count) {
    throw new RangeError(`${where}: buffer.data has ${data.length} elements, but its shape `
      + `[${shape.join(', ')}] needs ${count}`);
  }

  const bytes = isBytes ? data : floatBytes(data);
  const n = width * height;
  let out;
  if (layout === 'interleaved') {
    // Already RGBA order; a converted float buffer is fresh, so it is used as it is.
    out = bytes instanceof Uint8ClampedArray && bytes !== data ? bytes : new Uint8ClampedArray(bytes);
  } else if (layout === 'interleaved-rgb') {
    out = new Uint8ClampedArray(n * 4);
    for (let p = 0, i = 0, o = 0; p < n; p++, i += 3, o += 4) {
      out[o] = bytes[i];
      out[o + 1] = bytes[i + 1];
      out[o + 2] = bytes[i + 2];
      out[o + 3] = 255;
    }
  } else {
    out = new Uint8ClampedArray(n * 4);
    for (let c = 0; c < 4; c++) {
      // Gray fills R, G and B from its one plane; a missing alpha plane is opaque.
      const plane = channels === 1 ? (c < 3 ? 0 : -1) : c < channels ? c * n : -1;
      if (plane < 0) {
        for (let i = c; i < out.length; i += 4) out[i] = 255;
      } else {
        for (let p = 0, i = c; p < n; p++, i += 4) out[i] = bytes[plane + p];
      }
    }
  }
  // Looked up per call, not at import: a page may load this before a polyfill, and tests stub it.
  const ImageData_ = globalThis.ImageData;
  if (typeof ImageData_ === 'function') return new ImageData_(out, width, height);
  return { data: out, width, height, colorSpace: 'srgb' };
}
