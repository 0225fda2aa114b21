// Halide's runtime asks navigator.gpu for its adapter and device. The Li2018 runner
// (li2018.mjs) sets navigator.gpu itself, to remember the device and wait on its queue; run
// alone, this module gets dawn.node's.
if (!globalThis.navigator || !globalThis.navigator.gpu) {
  const dawn = require(process.env.HL_WEBGPU_NODE_BINDINGS);
  Object.assign(globalThis, dawn.globals);
  globalThis.navigator = { gpu: dawn.create([]) };
}
