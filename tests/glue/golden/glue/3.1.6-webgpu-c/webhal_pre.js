// webhal's --pre-js for blur (wasm-32-wasmrt-wasm_simd128-webgpu, Emscripten 3.1.6): it runs
// inside the module factory, before Emscripten's own code.

// The entry function, called with its arguments (numbers and wasm addresses); a promise of
// its result.
// Nothing in it waits: the GPU outputs are read back after it returns.
Module['webhalCall'] = async (args) => Module["_blur"](...args);
// The same call, its result at once: runtime_js takes it and saves a turn of the event loop's
// microtasks per run.
Module['webhalCallNow'] = (args) => Module["_blur"](...args);

// C code on webgpu.h shares the package's GPUDevice: emscripten_webgpu_get_device() returns it.
if (Module['webhalGpu']) Module['preinitializedWebGPUDevice'] = Module['webhalGpu'].device;

// Emscripten 3.1.6's webgpu.h bindings call WebGPU by names it has since dropped: a
// compute pass's dispatch() and dispatchIndirect(), and pipelines with an undefined layout
// (now 'auto'). Where the device lacks the old names, they are forwarded to the new ones.
(function webhalForwardOldWebGPUNames(device) {
  // Plain ES2015 (no rest, spread or destructuring): 3.1.6's JS optimizer walks nothing newer.
  if (!device) return;
  var pass = device.createCommandEncoder().beginComputePass();
  var passes = Object.getPrototypeOf(pass);
  pass.end();
  [['dispatch', 'dispatchWorkgroups'], ['dispatchIndirect', 'dispatchWorkgroupsIndirect']]
    .forEach(function (names) {
      var now = names[1];
      if (!(names[0] in passes) && now in passes) {
        passes[names[0]] = function () { return this[now].apply(this, arguments); };
      }
    });
  var devices = Object.getPrototypeOf(device);
  ['createComputePipeline', 'createRenderPipeline'].forEach(function (name) {
    var create = devices[name];
    if (!create || create.webhalForwarded) return;
    devices[name] = function (descriptor) {
      return create.call(this, descriptor && descriptor.layout === undefined
        ? Object.assign({}, descriptor, { layout: 'auto' }) : descriptor);
    };
    devices[name].webhalForwarded = true;
  });
})(Module['preinitializedWebGPUDevice']);
