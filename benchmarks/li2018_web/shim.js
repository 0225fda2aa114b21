// What Halide 21's WebGPU runtime calls that Emscripten 3.1.6's bindings lack (or spell the
// 2022 way).
mergeInto(LibraryManager.library, {
  wgpuBufferGetSize__deps: ['$WebGPU'],
  wgpuBufferGetSize: function(bufferId) { return WebGPU.mgrBuffer.get(bufferId)["size"]; },
  wgpuComputePassEncoderDispatchWorkgroups__deps: ['$WebGPU'],
  wgpuComputePassEncoderDispatchWorkgroups: function(passId, x, y, z) {
    WebGPU.mgrComputePassEncoder.get(passId)["dispatchWorkgroups"](x, y, z);
  },
  // the filters of Halide's header: 0 validation, 1 out-of-memory, 2 internal
  wgpuDevicePushErrorScope__deps: ['$WebGPU'],
  wgpuDevicePushErrorScope: function(deviceId, filter) {
    WebGPU.mgrDevice.get(deviceId)["pushErrorScope"](
      ['validation', 'out-of-memory', 'internal'][filter]);
  },
  // no layout: "auto" (required now; optional in 2022)
  wgpuDeviceCreateComputePipeline__deps: ['$WebGPU'],
  wgpuDeviceCreateComputePipeline: function(deviceId, descriptor) {
    var layoutId = {{{ makeGetValue('descriptor',
                                    C_STRUCTS.WGPUComputePipelineDescriptor.layout, '*') }}};
    var desc = {
      "layout": layoutId ? WebGPU.mgrPipelineLayout.get(layoutId) : "auto",
      "compute": WebGPU.makeProgrammableStageDescriptor(
        descriptor + {{{ C_STRUCTS.WGPUComputePipelineDescriptor.compute }}}),
    };
    return WebGPU.mgrComputePipeline.create(
      WebGPU.mgrDevice.get(deviceId)["createComputePipeline"](desc));
  },
});
