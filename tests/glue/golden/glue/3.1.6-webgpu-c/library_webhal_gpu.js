// webhal's --js-library for blur's GPU variant: the `webhal_gpu_*` functions its wasm
// imports (docs/abi.md), handed to the WebGPURuntime that runtime_js passes to the module
// factory as `webhalGpu` (runtime_js/webgpu.js). Used at link time only.
mergeInto(LibraryManager.library, {
  webhal_gpu_buffer: function (uc, id, host, nbytes, hostCurrent) {
    return Module['webhalGpu'].buffer(id, host, nbytes, hostCurrent);
  },
  webhal_gpu_host_dirty: function (uc, id) {
    return Module['webhalGpu'].hostDirty(id);
  },
  // Only outputs are read back, after the entry returns (WebGPURuntime.finish).
  webhal_gpu_copy_to_host: function (uc, id) {
    return Module['webhalGpu'].copyToHost(id);
  },
  webhal_gpu_run: function (uc, kernel, gx, gy, gz, args, nbytes) {
    return Module['webhalGpu'].run(kernel, gx, gy, gz, args, nbytes);
  },
});
