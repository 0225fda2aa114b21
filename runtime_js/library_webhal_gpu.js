// Emscripten --js-library of webhal's GPU variants: the `webhal_gpu_*` functions a pipeline's
// wasm imports (docs/abi.md), handed to the WebGPURuntime passed as `webhalGpu` to the module
// factory (runtime_js/webgpu.js). Linked by `webhal build`; not loaded at run time.
mergeInto(LibraryManager.library, {
  webhal_gpu_buffer: function (uc, id, host, nbytes, hostCurrent) {
    return Module['webhalGpu'].buffer(id, host, nbytes, hostCurrent);
  },
  webhal_gpu_host_dirty: function (uc, id) {
    return Module['webhalGpu'].hostDirty(id);
  },
  webhal_gpu_copy_to_host: function (uc, id) {
    return Module['webhalGpu'].copyToHost(id);
  },
  webhal_gpu_run: function (uc, kernel, gx, gy, gz, args, nbytes) {
    return Module['webhalGpu'].run(kernel, gx, gy, gz, args, nbytes);
  },
});
