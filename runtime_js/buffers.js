// Arguments of a pipeline from JavaScript values to wasm memory and back, in Halide's axis
// order (x first): halide_buffer_t laid out as abi.js (generated from webhal/abi.py) says.

import { BUFFER_FLAG, HALIDE_BUFFER_T, HALIDE_DIMENSION_T, packType } from './abi.js';

// Element type -> the typed array that holds it.
export const ARRAYS = Object.freeze({
  bool: Uint8Array,
  int8: Int8Array,
  uint8: Uint8Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int32: Int32Array,
  uint32: Uint32Array,
  float32: Float32Array,
  float64: Float64Array,
});

export function parseType(name) {
  const m = /^(bool|int|uint|float)(\d*)$/.exec(name);
  if (!m || !(name in ARRAYS)) throw new TypeError(`webhal: no JavaScript type for ${name}`);
  if (m[1] === 'bool') return { code: 'uint', bits: 1, bytes: 1 };
  const bits = Number(m[2]);
  return { code: m[1], bits, bytes: bits / 8 };
}

// A checked input: `value` is { data: TypedArray, shape: [x extent, y extent, ...] }.
export function checkBuffer(where, arg, value) {
  if (value === null || typeof value !== 'object' || !('data' in value) || !('shape' in value)) {
    throw new TypeError(`${where}: ${arg.name} must be { data, shape } (a ${ARRAYS[arg.type].name} `
      + `and ${arg.dimensions} extents, x first)`);
  }
  const want = ARRAYS[arg.type];
  if (!(value.data instanceof want)) {
    const got = value.data?.constructor?.name ?? typeof value.data;
    throw new TypeError(`${where}: ${arg.name}.data must be a ${want.name} (${arg.type}), not a ${got}`);
  }
  return checkShape(where, arg, value.shape, value.data.length);
}

export function checkShape(where, arg, shape, length) {
  if (!Array.isArray(shape) || shape.length !== arg.dimensions
      || !shape.every((s) => Number.isInteger(s) && s >= 0)) {
    throw new RangeError(`${where}: ${arg.name}.shape must be ${arg.dimensions} non-negative `
      + `integers (x first), not ${JSON.stringify(shape)}`);
  }
  const count = shape.reduce((a, b) => a * b, 1);
  if (length !== undefined && length !== count) {
    throw new RangeError(`${where}: ${arg.name} has ${length} elements, but its shape `
      + `[${shape.join(', ')}] needs ${count}`);
  }
  return count;
}

// Scalars: numbers within the type's range (booleans for bool).
export function checkScalar(where, arg, value) {
  if (arg.type === 'bool') {
    if (typeof value !== 'boolean') throw new TypeError(`${where}: ${arg.name} must be a boolean`);
    return value ? 1 : 0;
  }
  if (typeof value !== 'number' || Number.isNaN(value) && !arg.type.startsWith('float')) {
    throw new TypeError(`${where}: ${arg.name} must be a number (${arg.type}), not ${typeof value}`);
  }
  if (arg.type.startsWith('float')) return value;
  const { code, bits } = parseType(arg.type);
  const lo = code === 'int' ? -(2 ** (bits - 1)) : 0;
  const hi = code === 'int' ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
  if (!Number.isInteger(value) || value < lo || value > hi) {
    throw new RangeError(`${where}: ${arg.name} must be an integer in [${lo}, ${hi}] (${arg.type}), `
      + `not ${value}`);
  }
  return value;
}

// halide_buffer_t and its dimensions in wasm memory, over `host` (a wasm address); dense,
// x innermost. Returns the struct's address; free it with module._free.
export function writeBuffer(module, arg, shape, host, hostDirty, heap = () => module.HEAPU8) {
  const dims = shape.length;
  const bytes = HALIDE_BUFFER_T.size + HALIDE_DIMENSION_T.size * dims;
  const at = module._malloc(bytes);
  if (!at) throw new RangeError(`webhal: out of wasm memory for ${arg.name}`);
  const view = new DataView(heap().buffer, at, bytes);
  for (let i = 0; i < bytes; i += 4) view.setUint32(i, 0, true);
  const { code, bits } = parseType(arg.type);
  const dimAt = at + HALIDE_BUFFER_T.size;
  view.setUint32(HALIDE_BUFFER_T.host, host, true);
  view.setUint32(HALIDE_BUFFER_T.flags, hostDirty ? BUFFER_FLAG.host_dirty : 0, true);
  view.setUint32(HALIDE_BUFFER_T.type, packType(code, bits), true);
  view.setInt32(HALIDE_BUFFER_T.dimensions, dims, true);
  view.setUint32(HALIDE_BUFFER_T.dim, dimAt, true);
  let stride = 1;
  shape.forEach((extent, d) => {
    const o = HALIDE_BUFFER_T.size + HALIDE_DIMENSION_T.size * d;
    view.setInt32(o + HALIDE_DIMENSION_T.min, 0, true);
    view.setInt32(o + HALIDE_DIMENSION_T.extent, extent, true);
    view.setInt32(o + HALIDE_DIMENSION_T.stride, stride, true);
    stride *= extent;
  });
  return at;
}
