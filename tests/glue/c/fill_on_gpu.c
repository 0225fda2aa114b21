// A user's own C code on Emscripten's webgpu.h, linked into a package with
// `webhal build --c-source fill_on_gpu.c --export fill_on_gpu`: on the webgpu variant it runs
// a compute shader of its own on the package's GPUDevice and hands the buffer to JavaScript.
#include <emscripten.h>
#include <stdint.h>

#ifdef WEBHAL_WEBGPU
#include <emscripten/html5_webgpu.h>
#include <webgpu/webgpu.h>

static const char *FILL =
    "@group(0) @binding(0) var<storage, read_write> words: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) id: vec3<u32>) {\n"
    "  if (id.x < arrayLength(&words)) { words[id.x] = (id.x * 7u) % 256u; }\n"
    "}\n";

EM_JS(void, publish, (WGPUBuffer buffer), {
  Module['filledByC'] = WebGPU.mgrBuffer.get(buffer);
});

// Fills `count` words with (i * 7) % 256 on the GPU; the buffer is Module.filledByC.
int fill_on_gpu(int count) {
  WGPUDevice device = emscripten_webgpu_get_device();
  WGPUBufferDescriptor buffer_desc = {
      .usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst,
      .size = (uint64_t)count * 4};
  WGPUBuffer buffer = wgpuDeviceCreateBuffer(device, &buffer_desc);
  WGPUShaderModuleWGSLDescriptor wgsl = {
      .chain = {.sType = WGPUSType_ShaderModuleWGSLDescriptor}, .source = FILL};
  WGPUShaderModuleDescriptor shader_desc = {.nextInChain = &wgsl.chain};
  WGPUShaderModule shader = wgpuDeviceCreateShaderModule(device, &shader_desc);
  WGPUComputePipelineDescriptor pipeline_desc = {
      .compute = {.module = shader, .entryPoint = "main"}};  // no layout: the shader's own
  WGPUComputePipeline pipeline = wgpuDeviceCreateComputePipeline(device, &pipeline_desc);
  WGPUBindGroupEntry entry = {.binding = 0, .buffer = buffer, .size = (uint64_t)count * 4};
  WGPUBindGroupDescriptor group_desc = {
      .layout = wgpuComputePipelineGetBindGroupLayout(pipeline, 0),
      .entryCount = 1, .entries = &entry};
  WGPUBindGroup group = wgpuDeviceCreateBindGroup(device, &group_desc);
  WGPUCommandEncoder encoder = wgpuDeviceCreateCommandEncoder(device, NULL);
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder, NULL);
  wgpuComputePassEncoderSetPipeline(pass, pipeline);
  wgpuComputePassEncoderSetBindGroup(pass, 0, group, 0, NULL);
  wgpuComputePassEncoderDispatch(pass, (count + 63) / 64, 1, 1);
  wgpuComputePassEncoderEnd(pass);
  WGPUCommandBuffer commands = wgpuCommandEncoderFinish(encoder, NULL);
  wgpuQueueSubmit(wgpuDeviceGetQueue(device), 1, &commands);
  publish(buffer);
  return 0;
}
#else
int fill_on_gpu(int count) { return -1; }  // the wasm variants have no GPU
#endif
