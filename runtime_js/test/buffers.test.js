// node --test runtime_js/test: the argument checks of runtime_js/buffers.js.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { HALIDE_BUFFER_T, HALIDE_DIMENSION_T, packType } from '../abi.js';
import { checkBuffer, checkScalar, checkShape, parseType, writeBuffer } from '../buffers.js';

const u8image = { name: 'input', kind: 'buffer', type: 'uint8', dimensions: 2 };

test('a buffer needs its typed array and a shape that fits', () => {
  assert.equal(checkBuffer('f.run', u8image, { data: new Uint8Array(6), shape: [3, 2] }), 6);
  assert.throws(() => checkBuffer('f.run', u8image, { data: new Int8Array(6), shape: [3, 2] }),
    { name: 'TypeError', message: 'f.run: input.data must be a Uint8Array (uint8), not a Int8Array' });
  assert.throws(() => checkBuffer('f.run', u8image, { data: new Uint8Array(6), shape: [3, 3] }),
    { name: 'RangeError', message: /has 6 elements, but its shape \[3, 3\] needs 9/ });
  assert.throws(() => checkBuffer('f.run', u8image, new Uint8Array(6)), { name: 'TypeError' });
  assert.throws(() => checkShape('f.run', u8image, [3]), { name: 'RangeError' });
  assert.throws(() => checkShape('f.run', u8image, [3, -1]), { name: 'RangeError' });
  assert.throws(() => checkShape('f.run', u8image, [3, 1.5]), { name: 'RangeError' });
});

test('scalars are checked against their type', () => {
  const s = (type) => ({ name: 'k', kind: 'scalar', type });
  assert.equal(checkScalar('f.run', s('uint8'), 255), 255);
  assert.throws(() => checkScalar('f.run', s('uint8'), 256), { name: 'RangeError' });
  assert.throws(() => checkScalar('f.run', s('int16'), -32769), { name: 'RangeError' });
  assert.throws(() => checkScalar('f.run', s('int32'), 1.5), { name: 'RangeError' });
  assert.throws(() => checkScalar('f.run', s('int32'), '1'), { name: 'TypeError' });
  assert.equal(checkScalar('f.run', s('bool'), true), 1);
  assert.throws(() => checkScalar('f.run', s('bool'), 1), { name: 'TypeError' });
  assert.ok(Number.isNaN(checkScalar('f.run', s('float32'), NaN)));
});

test('halide_buffer_t is laid out as abi.js says', () => {
  // A heap with a bump allocator stands in for the module's malloc: what is checked is the
  // layout writeBuffer produces, which the compiled pipelines read (tests/glue run them).
  const heap = new Uint8Array(1024);
  let next = 64;
  const module = { HEAPU8: heap, _malloc: (n) => { const at = next; next += n; return at; } };
  const at = writeBuffer(module, { name: 'b', type: 'int16' }, [5, 3, 2], 512, true);
  const view = new DataView(heap.buffer);
  assert.equal(view.getUint32(at + HALIDE_BUFFER_T.host, true), 512);
  assert.equal(view.getUint32(at + HALIDE_BUFFER_T.flags, true), 1);
  assert.equal(view.getUint32(at + HALIDE_BUFFER_T.type, true), packType('int', 16));
  assert.equal(view.getInt32(at + HALIDE_BUFFER_T.dimensions, true), 3);
  const dim = view.getUint32(at + HALIDE_BUFFER_T.dim, true);
  const field = (d, f) => view.getInt32(dim + d * HALIDE_DIMENSION_T.size + HALIDE_DIMENSION_T[f], true);
  assert.deepEqual([0, 1, 2].map((d) => [field(d, 'min'), field(d, 'extent'), field(d, 'stride')]),
    [[0, 5, 1], [0, 3, 5], [0, 2, 15]]);
  assert.deepEqual(parseType('bool'), { code: 'uint', bits: 1, bytes: 1 });
});
