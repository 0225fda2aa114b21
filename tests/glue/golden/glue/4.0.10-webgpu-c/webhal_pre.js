// webhal's --pre-js for blur (wasm-32-wasmrt-wasm_simd128-webgpu, Emscripten 4.0.10): it runs
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
