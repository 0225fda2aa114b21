// Arguments of a pipeline from JavaScript values to wasm memory and back, in the generator's
// axis order (dimension 0 innermost), checked against the constraints its metadata lists
// (webhal/glue/npm_arguments.py): halide_buffer_t laid out as abi.js (from webhal/abi.py) says.

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

// (Parsed once per type name: runs ask for it per buffer.)
const PARSED = new Map();

export function parseType(name) {
  let type = PARSED.get(name);
  if (type) return type;
  const m = /^(bool|int|uint|float)(\d*)$/.exec(name);
  if (!m || !(name in ARRAYS)) throw new TypeError(`webhal: no JavaScript type for ${name}`);
  const bits = m[1] === 'bool' ? 1 : Number(m[2]);
  type = Object.freeze(m[1] === 'bool' ? { code: 'uint', bits, bytes: 1 }
    : { code: m[1], bits, bytes: bits / 8 });
  PARSED.set(name, type);
  return type;
}

// The shape an argument takes, in words: its axes ("[c, x, y]"), fixed extents as numbers.
export function shapeText(arg) {
  const axes = arg.axes ?? Array.from({ length: arg.dimensions }, (_, d) => `d${d}`);
  return `[${axes.map((a, d) => fixed(arg, d, 'extent') ?? a).join(', ')}]`;
}

// The constant a generator's constraint gives dimension d's field, or undefined.
function fixed(arg, d, field) {
  return arg.constraints?.find((c) => c.dim === d && c.field === field && c.value !== null)?.value;
}

// A checked input: `value` is { data: TypedArray, shape: [extent of dimension 0, ...] }.
export function checkBuffer(where, arg, value) {
  if (value === null || typeof value !== 'object' || !('data' in value) || !('shape' in value)) {
    throw new TypeError(`${where}: ${arg.name} must be { data, shape } (a ${ARRAYS[arg.type].name} `
      + `and its shape ${shapeText(arg)}, dimension 0 innermost)`);
  }
  const want = ARRAYS[arg.type];
  if (!(value.data instanceof want)) {
    const got = value.data?.constructor?.name ?? typeof value.data;
    throw new TypeError(`${where}: ${arg.name}.data must be a ${want.name} (${arg.type}), not a ${got}`);
  }
  return checkShape(where, arg, value.shape, value.data.length);
}

// A shape's extents, checked against the generator's constant constraints (`dim(0).extent()
// == 3`, and a stride, which the dense buffers run() writes must meet).
export function checkShape(where, arg, shape, length) {
  if (!Array.isArray(shape) || shape.length !== arg.dimensions
      || !shape.every((s) => Number.isInteger(s) && s >= 0)) {
    throw new RangeError(`${where}: ${arg.name}.shape must be ${arg.dimensions} non-negative `
      + `integers, ${shapeText(arg)}, not ${JSON.stringify(shape)}`);
  }
  let stride = 1;
  shape.forEach((extent, d) => {
    for (const c of arg.constraints ?? []) {
      if (c.dim !== d || c.value === null || c.field === 'min') continue;
      const got = c.field === 'extent' ? extent : stride;
      if (got !== c.value) {
        const what = c.field === 'extent' ? `${arg.name}.shape[${d}]`
          : `the stride of ${arg.name}'s dimension ${d} (run() passes dense buffers, dimension 0 `
            + 'innermost)';
        throw new RangeError(`${where}: ${what} is ${got}, but the generator requires `
          + `${c.text}; ${arg.name}'s shape is ${shapeText(arg)}, not [${shape.join(', ')}]`);
      }
    }
    stride *= extent;
  });
  const count = shape.reduce((a, b) => a * b, 1);
  if (length !== undefined && length !== count) {
    throw new RangeError(`${where}: ${arg.name} has ${length} elements, but its shape `
      + `[${shape.join(', ')}] needs ${count}`);
  }
  return count;
}

// Scalars: numbers within the type's range (booleans for bool), within the Param's own range
// where it has one; NaN and infinities only where the Param allows them (allow_nonfinite).
export function checkScalar(where, arg, value) {
  if (arg.type === 'bool') {
    if (typeof value !== 'boolean') throw new TypeError(`${where}: ${arg.name} must be a boolean`);
    return value ? 1 : 0;
  }
  if (typeof value !== 'number') {
    throw new TypeError(`${where}: ${arg.name} must be a number (${arg.type}), not ${typeof value}`);
  }
  const [min, max] = arg.range ?? [null, null];
  if (arg.type.startsWith('float')) {
    if (!Number.isFinite(value)) {
      if (arg.nonfinite) return value;
      throw new RangeError(`${where}: ${arg.name} is ${value}, and the generator takes only finite `
        + `values for it (${arg.type}); declare it hl.InputScalar(hl.Float(..), `
        + 'allow_nonfinite=True) to pass NaN or infinities');
    }
  } else {
    const { code, bits } = parseType(arg.type);
    const lo = code === 'int' ? -(2 ** (bits - 1)) : 0;
    const hi = code === 'int' ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
    if (!Number.isInteger(value) || value < lo || value > hi) {
      throw new RangeError(`${where}: ${arg.name} must be an integer in [${lo}, ${hi}] `
        + `(${arg.type}), not ${value}`);
    }
  }
  if ((min !== null && value < min) || (max !== null && value > max)) {
    throw new RangeError(`${where}: ${arg.name} is ${value}, outside the range the generator `
      + `sets for it, [${min ?? '-Infinity'}, ${max ?? 'Infinity'}]`);
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
    // A constrained min (`dim(0).set_min(1)`) is met; the data is the same.
    view.setInt32(o + HALIDE_DIMENSION_T.min, fixed(arg, d, 'min') ?? 0, true);
    view.setInt32(o + HALIDE_DIMENSION_T.extent, extent, true);
    view.setInt32(o + HALIDE_DIMENSION_T.stride, stride, true);
    stride *= extent;
  });
  return at;
}
