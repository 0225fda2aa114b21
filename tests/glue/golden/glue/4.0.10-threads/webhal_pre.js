// webhal's --pre-js for blur (wasm-32-wasmrt-wasm_simd128-wasm_threads, Emscripten 4.0.10): it runs
// inside the module factory, before Emscripten's own code.

// Emscripten's Node code calls require() and reads __dirname, which an ES module lacks:
// runtime_js hands both in (from the .mjs file's URL); in a pthread worker, Emscripten's
// worker.js has put require on the global object.
var require = Module['webhalRequire'] || globalThis.require;
var __dirname = Module['webhalDirname'] || '';

// Emscripten starts its pthread workers with `new Worker(url)`: runtime_js makes them instead
// (Module['webhalWorker']), as ES-module workers that index.js names to bundlers, or in Node
// from worker_threads. Module['webhalPoolSize'] (PTHREAD_POOL_SIZE) is how many it starts.
var Worker = function (url, options) {
  return Module['webhalWorker'](url, options);
};

// The entry function, called with its arguments (numbers and wasm addresses); a promise of
// its result.
// Nothing in it waits: the GPU outputs are read back after it returns.
Module['webhalCall'] = async (args) => Module["_blur"](...args);
// The same call, its result at once: runtime_js takes it and saves a turn of the event loop's
// microtasks per run.
Module['webhalCallNow'] = (args) => Module["_blur"](...args);
