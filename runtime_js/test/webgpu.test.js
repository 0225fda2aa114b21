// node --test runtime_js/test: telling software WebGPU adapters from hardware ones
// (runtime_js/webgpu.js), as create() does before it takes the webgpu variant.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { describeAdapter, softwareAdapter } from '../webgpu.js';

const info = (fields) => ({ vendor: '', architecture: '', device: '', description: '', ...fields });

test('software and fallback adapters are named, hardware ones are not', () => {
  // As Chromium (no description) and dawn.node report SwiftShader.
  assert.equal(softwareAdapter(info({ vendor: 'google', architecture: 'swiftshader' })),
    'software adapter SwiftShader (google swiftshader)');
  assert.equal(softwareAdapter(info({ vendor: 'google', architecture: 'swiftshader',
    device: 'swiftshader-device-subzero-', description: 'SwiftShader driver 5.0.0' })),
  'software adapter SwiftShader driver 5.0.0 (google swiftshader)');
  assert.equal(softwareAdapter(info({ vendor: 'mesa', description: 'llvmpipe (LLVM 15.0.6, 256 bits)' })),
    'software adapter llvmpipe (LLVM 15.0.6, 256 bits) (mesa)');
  assert.match(softwareAdapter(info({ description: 'Microsoft Basic Render Driver' })), /^software adapter/);
  assert.equal(softwareAdapter(info({ vendor: 'x', isFallbackAdapter: true })),
    'fallback adapter of this browser (x)');
  for (const hardware of [{ vendor: 'nvidia', architecture: 'hopper', description: 'NVIDIA H200' },
    { vendor: 'intel', architecture: 'gen-12lp' }, { vendor: 'apple', architecture: 'metal-3' }]) {
    assert.equal(softwareAdapter(info(hardware)), null);
  }
});

test('adapter info comes from adapter.info, else requestAdapterInfo()', async () => {
  const today = { info: { vendor: 'google', architecture: 'swiftshader', isFallbackAdapter: true } };
  assert.deepEqual(await describeAdapter(today), info({ vendor: 'google',
    architecture: 'swiftshader', isFallbackAdapter: true }));
  const older = { isFallbackAdapter: false,
    requestAdapterInfo: async () => ({ vendor: 'nvidia', architecture: 'ampere' }) };
  assert.deepEqual(await describeAdapter(older), info({ vendor: 'nvidia', architecture: 'ampere',
    isFallbackAdapter: false }));
  assert.deepEqual(await describeAdapter({}), info({ isFallbackAdapter: false }));
});
