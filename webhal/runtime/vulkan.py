"""The Vulkan half of webhal's Python runtime (PyPI `vulkan`: cffi over the system's loader).

One instance and device per process, chosen by HL_VK_DEVICE_TYPE, with the instance layers of
HL_VK_LAYERS (else VK_INSTANCE_LAYERS); device memory comes in blocks that buffers are
sub-allocated from, as HL_VK_ALLOC_CONFIG says. Per pipeline one shader module and, per kernel,
a descriptor set layout, pipeline layout and compute pipeline, created once; descriptor sets are
reused while the same device buffers are bound. Scalars travel as push constants, workgroup
sizes as specialization constants. The calls and dirty rules are WebGPURuntime's (docs/abi.md,
"GPU calls").

`memory` reads and writes the host side: host JIT pointers or offsets in a wasm memory.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import struct
import sys
import threading
import time
from dataclasses import dataclass, field

from webhal import abi
from webhal.errors import CompileError, HalideError
from webhal.runtime.profiler import PROFILER
from webhal.runtime.webgpu import HostMemory

VALIDATION_LAYER = "VK_LAYER_KHRONOS_validation"
DRIVER_HINT = "apt-get install mesa-vulkan-drivers libvulkan1 (lavapipe: Vulkan on the CPU)"
LAYERS_HINT = "apt-get install vulkan-validationlayers"

# HL_VK_DEVICE_TYPE's names; "gpu" is any of the first three. Unset: the first in this order.
DEVICE_TYPES = ("discrete-gpu", "integrated-gpu", "virtual-gpu", "cpu")

# Manifest feature -> (the features struct that has it, its field). "v11"/"v12" are
# VkPhysicalDeviceVulkan11Features/Vulkan12Features, which need a Vulkan 1.2 device.
FEATURES = {
    "int8": ("v12", "shaderInt8"),
    "int16": ("core", "shaderInt16"),
    "int64": ("core", "shaderInt64"),
    "float16": ("v12", "shaderFloat16"),
    "float64": ("core", "shaderFloat64"),
    "storage8": ("v12", "storageBuffer8BitAccess"),
    "storage16": ("v11", "storageBuffer16BitAccess"),
}
# The target feature that makes the code generator ask for each one.
TARGET_FEATURES = {"int8": "vk_int8", "storage8": "vk_int8", "int16": "vk_int16",
                   "storage16": "vk_int16", "int64": "vk_int64", "float16": "vk_float16",
                   "float64": "vk_float64"}
# The newest SPIR-V each Vulkan version consumes.
SPIRV_FOR_VULKAN = {(1, 0): (1, 0), (1, 1): (1, 3), (1, 2): (1, 5), (1, 3): (1, 6)}

WHOLE_SIZE = (1 << 64) - 1  # VK_WHOLE_SIZE; the binding's constant is -1
NO_TIMEOUT = (1 << 64) - 1
MB = 1 << 20


# -- the binding and its errors ----------------------------------------------------------------

@functools.cache
def _vk():
    """The `vulkan` module; importing it loads libvulkan, which may be missing."""
    try:
        import vulkan
    except OSError:
        raise HalideError(f"the Vulkan loader (libvulkan.so.1) was not found: {DRIVER_HINT}"
                          ) from None
    return vulkan


class VulkanCallError(HalideError):
    """A Vulkan call failed; `call` is its name, `result` the VkResult's name."""

    def __init__(self, call_name: str, result: str):
        self.call, self.result = call_name, result
        super().__init__(f"{call_name} failed: {result}")


def _result_name(error: Exception) -> str:
    """VK_ERROR_OUT_OF_DEVICE_MEMORY for the binding's VkErrorOutOfDeviceMemory."""
    return "_".join(w.upper() for w in re.findall(r"[A-Z][a-z0-9]*", type(error).__name__))


def call(fn, *args):
    """fn(*args), a function of the binding; a failure becomes a VulkanCallError naming it
    (the binding raises bare exception classes, one per VkResult)."""
    vk = _vk()
    try:
        return fn(*args)
    except (vk.VkError, vk.VkException) as e:
        raise VulkanCallError(fn.__name__, _result_name(e)) from None


# -- validation messages -------------------------------------------------------------------------

_messages: list[str] = []


def validation_messages() -> list[str]:
    """The warnings and errors the validation layer reported since the last clear (empty
    unless VK_LAYER_KHRONOS_validation is on)."""
    return list(_messages)


def clear_validation_messages() -> None:
    _messages.clear()


def _on_message(severity, types, data, user_data):
    """The debug-utils messenger's callback. It must not raise: it runs inside Vulkan calls."""
    try:
        vk = _vk()
        text = vk.ffi.string(data.pMessage).decode("utf-8", "replace")
        kind = "error" if severity & vk.VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT \
            else "warning"
        _messages.append(f"{kind}: {text}")
        print(f"webhal Vulkan validation {kind}: {text}", file=sys.stderr)
    except Exception:  # never unwind into the driver
        pass
    return 0


# -- the environment -----------------------------------------------------------------------------

def _split(text: str) -> list[str]:
    # Halide separates with the platform's list delimiter (':' here, ';' on Windows); a comma
    # is accepted too. Layer names and numbers contain none of them.
    return [part for part in re.split(r"[:;,\s]+", text) if part]


def requested_layers() -> list[str]:
    """The instance layers HL_VK_LAYERS names, else VK_INSTANCE_LAYERS."""
    text = os.environ.get("HL_VK_LAYERS")
    if text is None:
        text = os.environ.get("VK_INSTANCE_LAYERS", "")
    return _split(text)


def requested_device_types() -> tuple[str, ...]:
    """The device types HL_VK_DEVICE_TYPE accepts, in order of preference."""
    text = os.environ.get("HL_VK_DEVICE_TYPE", "").strip().lower()
    if not text:
        return DEVICE_TYPES
    if text == "gpu":
        return DEVICE_TYPES[:3]
    if text not in DEVICE_TYPES:
        raise HalideError(f"HL_VK_DEVICE_TYPE={text} is not a device type: use gpu, "
                          f"{', '.join(DEVICE_TYPES)}, or unset it")
    return (text,)


@dataclass(frozen=True)
class AllocConfig:
    """The device memory allocator's limits (bytes; 0 = no limit), from HL_VK_ALLOC_CONFIG:
    maximum pool size, minimum and maximum block size (MB), maximum block count, and the
    multiple (bytes) every request is rounded up to."""

    maximum_pool_size: int = 0
    minimum_block_size: int = 32 * MB
    maximum_block_size: int = 0
    maximum_block_count: int = 0
    nearest_multiple: int = 32
    text: str = ""

    @classmethod
    def from_env(cls) -> AllocConfig:
        text = os.environ.get("HL_VK_ALLOC_CONFIG", "").strip()
        parts = _split(text)
        if len(parts) > 5 or not all(p.isdigit() for p in parts):
            raise HalideError(f"HL_VK_ALLOC_CONFIG={text} is not up to five numbers separated "
                              "by ':' (maximum pool MB, minimum block MB, maximum block MB, "
                              "maximum block count, nearest multiple in bytes)")
        values = [int(p) for p in parts] + [0, 32, 0, 0, 32][len(parts):]
        return cls(values[0] * MB, values[1] * MB, values[2] * MB, values[3], values[4], text)

    def describe(self) -> str:
        return f"HL_VK_ALLOC_CONFIG={self.text}" if self.text else \
            "HL_VK_ALLOC_CONFIG (unset: 0:32:0:0:32)"


# -- devices ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class DeviceInfo:
    """What webhal needs to know of a physical device."""

    name: str
    type: str                       # one of DEVICE_TYPES, or "other"
    api_version: tuple[int, int, int]
    features: tuple[str, ...]       # the FEATURES it offers
    max_push_constants: int = 128
    max_workgroups: tuple[int, int, int] = (65535, 65535, 65535)
    max_workgroup_size: tuple[int, int, int] = (128, 128, 64)
    max_invocations: int = 128

    def summary(self) -> str:
        version = ".".join(map(str, self.api_version))
        return f"{self.name} ({self.type}, Vulkan {version})"


def _version(v: int) -> tuple[int, int, int]:
    return ((v >> 22) & 0x7F, (v >> 12) & 0x3FF, v & 0xFFF)


def _type_name(vk, device_type: int) -> str:
    names = {vk.VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: "discrete-gpu",
             vk.VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: "integrated-gpu",
             vk.VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: "virtual-gpu",
             vk.VK_PHYSICAL_DEVICE_TYPE_CPU: "cpu"}
    return names.get(device_type, "other")


def _feature_chain(vk, api: tuple[int, ...]):
    """Zeroed features structs to query or enable: {"all": VkPhysicalDeviceFeatures2, "core":
    its VkPhysicalDeviceFeatures, "v11", "v12"} (the last two only on Vulkan 1.2 devices)."""
    chain = {}
    if api >= (1, 2):
        chain["v11"] = vk.VkPhysicalDeviceVulkan11Features()
        chain["v12"] = vk.VkPhysicalDeviceVulkan12Features(pNext=chain["v11"])
    chain["all"] = vk.VkPhysicalDeviceFeatures2(pNext=chain.get("v12"))
    chain["core"] = chain["all"].features
    return chain


def _offered_features(vk, physical, api) -> tuple[str, ...]:
    if api >= (1, 1):
        chain = _feature_chain(vk, api)
        vk.vkGetPhysicalDeviceFeatures2(physical, chain["all"])
        chain["core"] = chain["all"].features
    else:
        chain = {"core": vk.vkGetPhysicalDeviceFeatures(physical)}
    return tuple(name for name, (where, flag) in FEATURES.items()
                 if where in chain and getattr(chain[where], flag))


def _compute_queue_family(vk, physical) -> int | None:
    for index, family in enumerate(vk.vkGetPhysicalDeviceQueueFamilyProperties(physical)):
        if family.queueFlags & vk.VK_QUEUE_COMPUTE_BIT and family.queueCount > 0:
            return index
    return None


def _describe(vk, physical, instance_api) -> DeviceInfo:
    props = vk.vkGetPhysicalDeviceProperties(physical)
    # What an application may use is capped by the instance's version.
    api = _version(props.apiVersion)
    if api[:2] > instance_api[:2]:
        api = instance_api
    limits = props.limits
    return DeviceInfo(name=props.deviceName, type=_type_name(vk, props.deviceType),
                      api_version=api, features=_offered_features(vk, physical, api[:2]),
                      max_push_constants=limits.maxPushConstantsSize,
                      max_workgroups=tuple(limits.maxComputeWorkGroupCount),
                      max_workgroup_size=tuple(limits.maxComputeWorkGroupSize),
                      max_invocations=limits.maxComputeWorkGroupInvocations)


def _instance_version(vk) -> tuple[int, int, int]:
    try:
        return min(_version(vk.vkEnumerateInstanceVersion()), (1, 3, 0))
    except (AttributeError, vk.ProcedureNotFoundError):  # a Vulkan 1.0 loader
        return (1, 0, 0)


def available_layers() -> list[str]:
    """The instance layers the loader finds."""
    vk = _vk()
    return [layer.layerName for layer in call(vk.vkEnumerateInstanceLayerProperties)]


def _instance_extensions(vk, layers: list[str]) -> set[str]:
    names = {e.extensionName for e in call(vk.vkEnumerateInstanceExtensionProperties, None)}
    for layer in layers:
        names |= {e.extensionName
                  for e in call(vk.vkEnumerateInstanceExtensionProperties, layer)}
    return names


def _create_instance(vk, layers: list[str], extensions: list[str], version):
    app = vk.VkApplicationInfo(pApplicationName="webhal", pEngineName="webhal",
                               apiVersion=vk.VK_MAKE_VERSION(*version))
    flags = 0
    if "VK_KHR_portability_enumeration" in extensions:  # MoltenVK is listed only with it
        flags = vk.VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR
    info = vk.VkInstanceCreateInfo(flags=flags, pApplicationInfo=app,
                                   enabledLayerCount=len(layers), ppEnabledLayerNames=layers,
                                   enabledExtensionCount=len(extensions),
                                   ppEnabledExtensionNames=extensions)
    try:
        return call(vk.vkCreateInstance, info, None)
    except VulkanCallError as e:
        if e.result == "VK_ERROR_INCOMPATIBLE_DRIVER":  # what the loader says without one
            raise HalideError(f"no Vulkan driver found ({e}): {DRIVER_HINT}") from None
        raise


def describe_devices() -> list[DeviceInfo]:
    """Every Vulkan device the loader finds (for `webhal doctor`), through a short-lived
    instance without layers."""
    vk = _vk()
    version = _instance_version(vk)
    offered = _instance_extensions(vk, [])
    extensions = [e for e in ("VK_KHR_portability_enumeration",) if e in offered]
    instance = _create_instance(vk, [], extensions, version)
    try:
        return [_describe(vk, p, version) for p in call(vk.vkEnumeratePhysicalDevices, instance)]
    finally:
        vk.vkDestroyInstance(instance, None)


def probe() -> dict:
    """What `webhal doctor` reports, as JSON-ready data: the binding's version, the instance
    layers, the devices (DeviceInfo fields), and the error that stopped the look if one did."""
    from dataclasses import asdict
    from importlib.metadata import PackageNotFoundError, version

    try:
        binding = version("vulkan")
    except PackageNotFoundError:
        binding = ""
    found = {"binding": binding, "devices": [], "layers": []}
    try:
        found["layers"] = available_layers()
        found["devices"] = [asdict(d) for d in describe_devices()]
    except HalideError as e:
        found["error"] = str(e)
    return found


@dataclass
class Context:
    """The process's Vulkan instance and device."""

    vk: object
    instance: object
    physical: object
    info: DeviceInfo
    device: object
    queue: object
    queue_family: int
    memory_flags: list[int]       # each memory type's property flags
    allocator: BlockAllocator
    layers: tuple[str, ...]
    messenger: object = None
    lock: threading.Lock = field(default_factory=threading.Lock)  # vkQueueSubmit's


def _choose_device(vk, instance, version):
    """(physical device, DeviceInfo, compute queue family) by HL_VK_DEVICE_TYPE."""
    wanted = requested_device_types()
    found = []
    for physical in call(vk.vkEnumeratePhysicalDevices, instance):
        family = _compute_queue_family(vk, physical)
        if family is not None:
            found.append((physical, _describe(vk, physical, version), family))
    ranked = sorted((c for c in found if c[1].type in wanted),
                    key=lambda c: wanted.index(c[1].type))
    if ranked:
        return ranked[0]
    if not found:
        raise HalideError(f"no Vulkan device with a compute queue: {DRIVER_HINT}")
    listed = ", ".join(c[1].summary() for c in found)
    raise HalideError(f"no Vulkan device of type {os.environ.get('HL_VK_DEVICE_TYPE')} "
                      f"(HL_VK_DEVICE_TYPE); the devices are {listed}. Unset HL_VK_DEVICE_TYPE "
                      "or install a driver for such a device")


def _create_device(vk, physical, info: DeviceInfo, family: int):
    """A device with one compute queue and every FEATURES entry the physical device offers
    (the device is made once per process, whatever the pipelines need)."""
    api = info.api_version[:2]
    chain = _feature_chain(vk, api) if api >= (1, 2) else {"core": vk.VkPhysicalDeviceFeatures()}
    for name in info.features:
        where, flag = FEATURES[name]
        setattr(chain[where], flag, 1)
    offered = {e.extensionName
               for e in call(vk.vkEnumerateDeviceExtensionProperties, physical, None)}
    # A portability (non-conformant) implementation must have this enabled.
    extensions = [e for e in ("VK_KHR_portability_subset",) if e in offered]
    queue = vk.VkDeviceQueueCreateInfo(queueFamilyIndex=family, queueCount=1,
                                       pQueuePriorities=[1.0])
    if "all" in chain:
        chain["all"].features = chain["core"]
        info_struct = vk.VkDeviceCreateInfo(pNext=chain["all"], queueCreateInfoCount=1,
                                            pQueueCreateInfos=[queue],
                                            enabledExtensionCount=len(extensions),
                                            ppEnabledExtensionNames=extensions)
    else:
        info_struct = vk.VkDeviceCreateInfo(queueCreateInfoCount=1, pQueueCreateInfos=[queue],
                                            enabledExtensionCount=len(extensions),
                                            ppEnabledExtensionNames=extensions,
                                            pEnabledFeatures=chain["core"])
    return call(vk.vkCreateDevice, physical, info_struct, None)


def _create_messenger(vk, instance):
    """A debug-utils messenger collecting validation warnings and errors."""
    severity = (vk.VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT
                | vk.VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)
    types = (vk.VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT
             | vk.VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT
             | vk.VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT)
    # The binding keeps the Python callable in a module global behind one cffi callback, so
    # it stays alive as long as the module does.
    info = vk.VkDebugUtilsMessengerCreateInfoEXT(messageSeverity=severity, messageType=types,
                                                 pfnUserCallback=_on_message)
    create = vk.vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT")
    return call(create, instance, info, None)


@functools.cache
def context() -> Context:
    """The process's Vulkan instance and device, made on first use."""
    vk = _vk()
    layers = requested_layers()
    have = available_layers()
    for layer in layers:
        if layer not in have:
            hint = LAYERS_HINT if layer == VALIDATION_LAYER else "install the layer"
            raise HalideError(f"the Vulkan layer {layer} (HL_VK_LAYERS / VK_INSTANCE_LAYERS) "
                              f"is not installed: {hint}")
    version = _instance_version(vk)
    offered = _instance_extensions(vk, layers)
    extensions = [e for e in ("VK_KHR_portability_enumeration",) if e in offered]
    validating = VALIDATION_LAYER in layers and "VK_EXT_debug_utils" in offered
    if validating:
        extensions.append("VK_EXT_debug_utils")
    instance = _create_instance(vk, layers, extensions, version)
    messenger = _create_messenger(vk, instance) if validating else None
    physical, info, family = _choose_device(vk, instance, version)
    device = _create_device(vk, physical, info, family)
    memory = vk.vkGetPhysicalDeviceMemoryProperties(physical)
    flags = [memory.memoryTypes[i].propertyFlags for i in range(memory.memoryTypeCount)]
    return Context(vk=vk, instance=instance, physical=physical, info=info, device=device,
                   queue=vk.vkGetDeviceQueue(device, family, 0), queue_family=family,
                   memory_flags=flags, allocator=BlockAllocator(vk, device, flags,
                                                                AllocConfig.from_env()),
                   layers=tuple(layers), messenger=messenger)


def device_name() -> str:
    return context().info.name


# -- device memory -------------------------------------------------------------------------

@dataclass(eq=False)
class Block:
    """One VkDeviceMemory allocation that buffers are sub-allocated from."""

    memory: object
    type_index: int
    size: int
    address: int = 0            # where the block is mapped when host-visible, else 0
    free: list[list[int]] = field(default_factory=list)  # [offset, size], by offset
    regions: int = 0

    def __post_init__(self):
        if not self.free:
            self.free = [[0, self.size]]

    def take(self, size: int, alignment: int) -> int | None:
        """The offset of `size` bytes aligned to `alignment`, first fit; None when full."""
        for i, (start, length) in enumerate(self.free):
            offset = -(-start // alignment) * alignment
            end = offset + size
            if end <= start + length:
                rest = [[start, offset - start]] if offset > start else []
                if end < start + length:
                    rest.append([end, start + length - end])
                self.free[i:i + 1] = rest
                self.regions += 1
                return offset
        return None

    def give(self, offset: int, size: int) -> None:
        """Return a region, merged with its free neighbours."""
        free = self.free
        i = 0
        while i < len(free) and free[i][0] < offset:
            i += 1
        free.insert(i, [offset, size])
        if i + 1 < len(free) and offset + size == free[i + 1][0]:
            free[i][1] += free.pop(i + 1)[1]
        if i > 0 and free[i - 1][0] + free[i - 1][1] == offset:
            free[i - 1][1] += free.pop(i)[1]
        self.regions -= 1

    @property
    def empty(self) -> bool:
        return self.regions == 0


@dataclass(eq=False)
class Region:
    block: Block
    offset: int
    size: int


class BlockAllocator:
    """Device memory in blocks of at least the minimum block size, one memory type each;
    requests are placed first fit in a block of their type, a new block made when none has
    room, within the limits of an AllocConfig."""

    def __init__(self, vk, device, memory_flags: list[int], config: AllocConfig):
        self.vk, self.device, self.memory_flags, self.config = vk, device, memory_flags, config
        self.blocks: list[Block] = []
        self.lock = threading.Lock()

    @property
    def pool_bytes(self) -> int:
        return sum(b.size for b in self.blocks)

    def allocate(self, size: int, alignment: int, type_index: int) -> Region:
        multiple = self.config.nearest_multiple
        if multiple:
            size = -(-size // multiple) * multiple
        with self.lock:
            for block in self.blocks:
                if block.type_index == type_index:
                    offset = block.take(size, alignment)
                    if offset is not None:
                        return Region(block, offset, size)
            block = self._new_block(size, type_index)
            return Region(block, block.take(size, alignment), size)

    def free(self, region: Region) -> None:
        with self.lock:
            block = region.block
            block.give(region.offset, region.size)
            # Blocks made larger than the minimum for one big buffer go back at once; the
            # others stay for the next requests.
            if block.empty and block.size > self.config.minimum_block_size:
                self.blocks.remove(block)
                self.vk.vkFreeMemory(self.device, block.memory, None)

    def _new_block(self, size: int, type_index: int) -> Block:
        c = self.config
        if c.maximum_block_size and size > c.maximum_block_size:
            raise HalideError(f"a device buffer of {size} bytes is larger than the maximum "
                              f"block size of {c.describe()}; raise it")
        if c.maximum_block_count and len(self.blocks) >= c.maximum_block_count:
            raise HalideError(f"device memory needs more than the {c.maximum_block_count} "
                              f"blocks {c.describe()} allows; raise the maximum block count")
        block_size = max(size, c.minimum_block_size)
        if c.maximum_block_size:
            block_size = min(block_size, c.maximum_block_size)
        if c.maximum_pool_size and self.pool_bytes + block_size > c.maximum_pool_size:
            block_size = size  # no more than asked for, near the limit
            if self.pool_bytes + size > c.maximum_pool_size:
                raise HalideError(f"a device buffer of {size} bytes would take device memory "
                                  f"past the maximum pool size of {c.describe()} "
                                  f"({self.pool_bytes} bytes in use); raise it")
        vk = self.vk
        info = vk.VkMemoryAllocateInfo(allocationSize=block_size, memoryTypeIndex=type_index)
        memory = call(vk.vkAllocateMemory, self.device, info, None)
        address = 0
        if self.memory_flags[type_index] & vk.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT:
            mapped = call(vk.vkMapMemory, self.device, memory, 0, block_size, 0)
            address = int(vk.ffi.cast("uintptr_t", vk.ffi.from_buffer(mapped)))
        block = Block(memory, type_index, block_size, address)
        self.blocks.append(block)
        return block


# -- the runtime -----------------------------------------------------------------------------

@dataclass(eq=False)
class DeviceBuffer:
    handle: object      # VkBuffer
    region: Region
    nbytes: int         # on the device: a multiple of 4
    serial: int         # names this device buffer in descriptor set keys
    host_bytes: int = 0  # in host memory
    host: int = 0
    host_newer: bool = False
    device_newer: bool = False
    zeroed: bool = False  # its device memory was cleared or written whole since it was made


@dataclass(eq=False)
class Kernel:
    """One kernel's Vulkan objects and what it binds."""

    name: str
    set_layout: object
    layout: object
    pipeline: object
    ids: list[int]          # buffer ids it binds, by binding
    bindings: list[int]
    writes: list[int]       # the ids it may write
    push_bytes: int


class VulkanRuntime:
    """Runs one pipeline's kernels (binary SPIR-V and its manifest). `memory` has
    read(address, nbytes) -> bytes and write(address, data). With `profile` (the target's
    feature), each dispatch is waited for and its time added to the profiler: from timestamp
    queries where the queue has timestamps, else from the wall clock (submission to fence); the
    host's part of uploads and each readback are timed as copies."""

    API = "Vulkan"  # names the runtime in its errors

    # Upload and read back through a host-visible device buffer's own mapping (lavapipe,
    # integrated GPUs) rather than through the staging buffer; tests turn it off.
    map_device_buffers = True

    def __init__(self, spirv: bytes, manifest: dict, memory, profile: bool = False):
        self._closed = True  # until every object below exists (close() then has nothing to do)
        self.profile, self.query_pool = profile, None
        self.ctx = context()
        self.vk = self.ctx.vk
        self.spirv, self.manifest, self.memory = bytes(spirv), manifest, memory
        self.kernels = manifest["kernels"]
        self._check_manifest(manifest)
        self.by_id = {b["id"]: b for b in manifest["buffers"]}
        self.buffers: dict[int, DeviceBuffer] = {}
        self.descriptor_sets: dict[tuple, tuple] = {}  # key -> (set, pool)
        self.pools: list = []
        self.staging: DeviceBuffer | None = None
        self.error: tuple[str, type] | None = None
        self.launches: list[tuple] = []  # this call's dispatches, for replay() in benchmarks
        self.pipelines_created = 0
        self._serial = 0
        self._pending = False
        self.module = self._shader_module()
        self.pipelines = [self._kernel(k) for k in self.kernels]
        self._commands()
        if profile:
            self._timestamps()
        self._closed = False

    # -- set-up ----------------------------------------------------------------------------

    def _check_manifest(self, manifest: dict) -> None:
        info = self.ctx.info
        needed = tuple(manifest.get("vulkan_version") or (1, 0))
        if needed > info.api_version[:2]:
            raise CompileError(f"the pipeline's kernels need Vulkan {needed[0]}.{needed[1]}, "
                               f"but the device {info.summary()} does not offer it; compile "
                               "for an older vk_v* target feature or choose another device "
                               "(HL_VK_DEVICE_TYPE)")
        spirv = tuple(manifest.get("spirv_version") or (1, 0))
        accepted = SPIRV_FOR_VULKAN.get(info.api_version[:2], (1, 6))
        if spirv > accepted:
            raise CompileError(f"the pipeline's SPIR-V {spirv[0]}.{spirv[1]} is newer than "
                               f"the device {info.summary()} accepts")
        for name in manifest.get("features", []):
            if name not in FEATURES:
                raise CompileError(f"the pipeline needs an unknown Vulkan feature {name}")
            if name not in info.features:
                where, flag = FEATURES[name]
                raise CompileError(f"the pipeline's kernels need the Vulkan feature {name} "
                                   f"({flag}), which the device {info.summary()} does not "
                                   f"offer; compile without {TARGET_FEATURES[name]} or choose "
                                   "another device (HL_VK_DEVICE_TYPE)")
        for k in manifest["kernels"]:
            if (k.get("push_constant_bytes") or 0) > info.max_push_constants:
                raise CompileError(f"kernel {k['name']} has {k['push_constant_bytes']} bytes "
                                   f"of scalars, more than the {info.max_push_constants} "
                                   f"bytes of push constants the device {info.name} allows")
            size = tuple(k["workgroup_size"])
            too_big = any(s > m for s, m in zip(size, info.max_workgroup_size))
            if too_big or size[0] * size[1] * size[2] > info.max_invocations:
                raise CompileError(f"kernel {k['name']}'s workgroup {size} is larger than the "
                                   f"device {info.name} allows ({info.max_workgroup_size}, "
                                   f"{info.max_invocations} invocations); use smaller "
                                   "gpu_threads/gpu_tile sizes")

    def _rejected(self, e: VulkanCallError) -> CompileError:
        text = f"the Vulkan device rejected webhal's SPIR-V (a webhal bug; please report it): {e}"
        if validation_messages():
            text += "\n" + "\n".join(validation_messages()[-5:])
        return CompileError(text)

    def _shader_module(self):
        vk = self.vk
        if len(self.spirv) % 4 or self.spirv[:4] != b"\x03\x02\x23\x07":
            raise CompileError("the Vulkan runtime was given something that is not binary "
                               "SPIR-V (a webhal bug; please report it)")
        info = vk.VkShaderModuleCreateInfo(codeSize=len(self.spirv), pCode=self.spirv)
        try:
            return call(vk.vkCreateShaderModule, self.ctx.device, info, None)
        except VulkanCallError as e:
            raise self._rejected(e) from None

    def _kernel(self, k: dict) -> Kernel:
        vk, device = self.vk, self.ctx.device
        ids = sorted((bid for bid, b in self.by_id.items() if b["binding"] in k["buffers"]),
                     key=lambda bid: self.by_id[bid]["binding"])
        bindings = [self.by_id[bid]["binding"] for bid in ids]
        entries = [vk.VkDescriptorSetLayoutBinding(
            binding=b, descriptorType=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount=1,
            stageFlags=vk.VK_SHADER_STAGE_COMPUTE_BIT) for b in bindings]
        set_layout = call(vk.vkCreateDescriptorSetLayout, device,
                          vk.VkDescriptorSetLayoutCreateInfo(bindingCount=len(entries),
                                                             pBindings=entries or None), None)
        push_bytes = k.get("push_constant_bytes") or 0
        ranges = [vk.VkPushConstantRange(stageFlags=vk.VK_SHADER_STAGE_COMPUTE_BIT, offset=0,
                                         size=push_bytes)] if push_bytes else []
        layout = call(vk.vkCreatePipelineLayout, device, vk.VkPipelineLayoutCreateInfo(
            setLayoutCount=1, pSetLayouts=[set_layout], pushConstantRangeCount=len(ranges),
            pPushConstantRanges=ranges or None), None)
        pipeline = self._pipeline(k, layout)
        writes = [bid for bid in ids if not self.by_id[bid]["read_only"]]
        return Kernel(k["name"], set_layout, layout, pipeline, ids, bindings, writes, push_bytes)

    def _pipeline(self, k: dict, layout):
        vk = self.vk
        spec = data = entries = None
        if k.get("spec_ids"):
            data = struct.pack("<3I", *k["workgroup_size"])
            entries = [vk.VkSpecializationMapEntry(constantID=sid, offset=4 * i, size=4)
                       for i, sid in enumerate(k["spec_ids"]) if sid is not None]
            spec = vk.VkSpecializationInfo(mapEntryCount=len(entries), pMapEntries=entries,
                                           dataSize=12, pData=vk.ffi.from_buffer(data))
        stage = vk.VkPipelineShaderStageCreateInfo(stage=vk.VK_SHADER_STAGE_COMPUTE_BIT,
                                                   module=self.module, pName=k["name"],
                                                   pSpecializationInfo=spec)
        info = vk.VkComputePipelineCreateInfo(stage=stage, layout=layout)
        try:
            pipeline = call(vk.vkCreateComputePipelines, self.ctx.device, None, 1, [info],
                            None)[0]
        except VulkanCallError as e:
            raise self._rejected(e) from None
        self.pipelines_created += 1
        del stage, entries, data  # kept alive until here: the structs point into them
        return pipeline

    def _commands(self):
        vk, device = self.vk, self.ctx.device
        self.command_pool = call(vk.vkCreateCommandPool, device, vk.VkCommandPoolCreateInfo(
            flags=vk.VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
            queueFamilyIndex=self.ctx.queue_family), None)
        buffers = call(vk.vkAllocateCommandBuffers, device, vk.VkCommandBufferAllocateInfo(
            commandPool=self.command_pool, level=vk.VK_COMMAND_BUFFER_LEVEL_PRIMARY,
            commandBufferCount=1))
        self.command_buffer = buffers[0]
        self.fence = call(vk.vkCreateFence, device, vk.VkFenceCreateInfo(), None)

    def _timestamps(self) -> None:
        """A query pool of two timestamps, where the device's compute queue has them."""
        vk = self.vk
        limits = vk.vkGetPhysicalDeviceProperties(self.ctx.physical).limits
        family = vk.vkGetPhysicalDeviceQueueFamilyProperties(self.ctx.physical)[
            self.ctx.queue_family]
        if not family.timestampValidBits or limits.timestampPeriod <= 0:
            return
        self.timestamp_period = limits.timestampPeriod  # ns per tick
        self.query_pool = call(vk.vkCreateQueryPool, self.ctx.device, vk.VkQueryPoolCreateInfo(
            queryType=vk.VK_QUERY_TYPE_TIMESTAMP, queryCount=2), None)

    def _kernel_ns(self, start: int) -> tuple[int, str]:
        """The last dispatch's time (after _finish) and how it was taken."""
        if self.query_pool is None:
            return time.perf_counter_ns() - start, "wall clock per dispatch (no timestamps)"
        vk = self.vk
        data = vk.ffi.new("uint64_t[2]")
        call(vk.vkGetQueryPoolResults, self.ctx.device, self.query_pool, 0, 2, 16, data, 8,
             vk.VK_QUERY_RESULT_64_BIT | vk.VK_QUERY_RESULT_WAIT_BIT)
        return int((data[1] - data[0]) * self.timestamp_period), "timestamp queries"

    # -- the calls host code makes -------------------------------------------------------------

    def buffer(self, buffer_id: int, host, nbytes: int, host_current: int) -> int:
        """A buffer exists at `host` (nbytes): keep (or make) its device copy."""
        b = self.buffers.get(buffer_id)
        size = max(4, -(-nbytes // 4) * 4)
        if b is None or b.nbytes != size:
            if b is not None:
                self._release(b)
            usage = (self.vk.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT
                     | self.vk.VK_BUFFER_USAGE_TRANSFER_SRC_BIT
                     | self.vk.VK_BUFFER_USAGE_TRANSFER_DST_BIT)
            b = self._device_buffer(size, usage, self.vk.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
            self.buffers[buffer_id] = b
        b.host = host if isinstance(host, int) else (host or 0)
        b.host_bytes = nbytes
        b.host_newer, b.device_newer = bool(host_current), False
        return 0

    def host_dirty(self, buffer_id: int) -> int:
        b = self.buffers[buffer_id]
        b.host_newer, b.device_newer = True, False
        return 0

    def copy_to_host(self, buffer_id: int) -> int:
        b = self.buffers[buffer_id]
        if not b.device_newer:
            return 0
        self._finish()
        start = time.perf_counter_ns()
        if self._mapped(b):
            self._read_mapped(b.region.block.address + b.region.offset, b)
        else:
            staging = self._staging(b.nbytes)
            cmd = self._begin()
            self._copy(cmd, b.handle, staging.handle, 0, 0, b.nbytes)
            self._barrier(cmd, self.vk.VK_PIPELINE_STAGE_TRANSFER_BIT,
                          self.vk.VK_ACCESS_TRANSFER_WRITE_BIT,
                          self.vk.VK_PIPELINE_STAGE_HOST_BIT, self.vk.VK_ACCESS_HOST_READ_BIT)
            self._submit(cmd)
            self._finish()
            self._read_mapped(staging.region.block.address + staging.region.offset, b)
        b.device_newer = False
        if self.profile:
            PROFILER.copy("to host", self.by_id[buffer_id].get("name", f"buffer {buffer_id}"),
                          time.perf_counter_ns() - start)
        return 0

    def run(self, kernel: int, gx: int, gy: int, gz: int, args: bytes) -> int:
        k = self.pipelines[kernel]
        limits = self.ctx.info.max_workgroups
        if any(g > m for g, m in zip((gx, gy, gz), limits)):
            self.error = (f"kernel {k.name} needs {gx}x{gy}x{gz} workgroups, more than the "
                          f"device allows ({limits[0]}x{limits[1]}x{limits[2]}); use larger "
                          "gpu_tile sizes", HalideError)
            return abi.ERROR_CODES["device_run_failed"]
        if min(gx, gy, gz) <= 0:
            return 0
        bound = [self.buffers[bid] for bid in k.ids]
        self._finish()
        cmd = self._begin()
        uploads = [b for b in bound if b.host_newer]
        start = time.perf_counter_ns()
        self._upload(cmd, bound)
        if self.profile and uploads:
            names = ", ".join(self.by_id[bid].get("name", f"buffer {bid}") for bid in k.ids
                              if self.buffers[bid] in uploads)
            PROFILER.copy("to device", names, time.perf_counter_ns() - start)
        descriptor_set = self._descriptor_set(kernel, bound)
        push = bytes(args[:k.push_bytes]).ljust(k.push_bytes, b"\0")
        if self.query_pool is not None:
            self.vk.vkCmdResetQueryPool(cmd, self.query_pool, 0, 2)
            self.vk.vkCmdWriteTimestamp(cmd, self.vk.VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                                        self.query_pool, 0)
        self._dispatch(cmd, k, descriptor_set, push, (gx, gy, gz))
        if self.query_pool is not None:
            self.vk.vkCmdWriteTimestamp(cmd, self.vk.VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                                        self.query_pool, 1)
        # Make the kernel's writes visible to host reads of mapped memory (copy_to_host).
        self._barrier(cmd, self.vk.VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      self.vk.VK_ACCESS_SHADER_WRITE_BIT, self.vk.VK_PIPELINE_STAGE_HOST_BIT,
                      self.vk.VK_ACCESS_HOST_READ_BIT)
        start = time.perf_counter_ns()
        self._submit(cmd)
        if self.profile:
            self._finish()
            PROFILER.kernel(k.name, *self._kernel_ns(start))
        if kernel == 0:
            self.launches.clear()
        self.launches.append((kernel, descriptor_set, (gx, gy, gz), push))
        for bid in k.writes:
            self.buffers[bid].device_newer = True
        return 0

    def run_packed(self, kernel, gx, gy, gz, args, nbytes) -> int:
        """run() with the scalars given as an address and length in host memory."""
        return self.run(kernel, gx, gy, gz, self.memory.read(args, nbytes) if nbytes else b"")

    def replay(self, repeats: int) -> float:
        """Seconds per repetition of the last call's dispatches, `repeats` times in one
        submission (for benchmarks: no host work, no copies)."""
        self._finish()
        cmd = self._begin()
        for _ in range(repeats):
            for kernel, descriptor_set, grid, push in self.launches:
                self._dispatch(cmd, self.pipelines[kernel], descriptor_set, push, grid)
        start = time.perf_counter()
        self._submit(cmd)
        self._finish()
        return (time.perf_counter() - start) / repeats

    def close(self) -> None:
        """Destroy this pipeline's Vulkan objects and give its device memory back (also done
        when the runtime is garbage collected)."""
        if self._closed:
            return
        self._closed = True
        vk, device = self.vk, self.ctx.device
        self._finish()
        for b in list(self.buffers.values()) + ([self.staging] if self.staging else []):
            self._destroy_buffer(b)
        self.buffers.clear()
        self.descriptor_sets.clear()
        for pool in self.pools:
            vk.vkDestroyDescriptorPool(device, pool, None)
        for k in self.pipelines:
            vk.vkDestroyPipeline(device, k.pipeline, None)
            vk.vkDestroyPipelineLayout(device, k.layout, None)
            vk.vkDestroyDescriptorSetLayout(device, k.set_layout, None)
        vk.vkDestroyShaderModule(device, self.module, None)
        vk.vkDestroyFence(device, self.fence, None)
        vk.vkDestroyCommandPool(device, self.command_pool, None)
        if self.query_pool is not None:
            vk.vkDestroyQueryPool(device, self.query_pool, None)

    def __del__(self):
        try:
            self.close()
        except Exception:  # at interpreter exit the binding may be gone
            pass

    # -- buffers ---------------------------------------------------------------------------

    def _memory_type(self, bits: int, wanted: int, required: int) -> int:
        """The first memory type `bits` allows that has `wanted`'s flags, else `required`'s."""
        flags = self.ctx.memory_flags
        for want in (wanted, required):
            for i, f in enumerate(flags):
                if bits & (1 << i) and f & want == want:
                    return i
        raise HalideError(f"the Vulkan device {self.ctx.info.name} has no memory type for a "
                          "buffer of this kind")

    def _device_buffer(self, size: int, usage: int, wanted: int, required: int = 0):
        vk, device = self.vk, self.ctx.device
        handle = call(vk.vkCreateBuffer, device, vk.VkBufferCreateInfo(
            size=size, usage=usage, sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE), None)
        try:
            needs = vk.vkGetBufferMemoryRequirements(device, handle)
            type_index = self._memory_type(needs.memoryTypeBits, wanted, required)
            region = self.ctx.allocator.allocate(needs.size, needs.alignment, type_index)
        except HalideError:
            vk.vkDestroyBuffer(device, handle, None)
            raise
        call(vk.vkBindBufferMemory, device, handle, region.block.memory, region.offset)
        self._serial += 1
        return DeviceBuffer(handle, region, size, self._serial)

    def _staging(self, nbytes: int) -> DeviceBuffer:
        """The staging buffer, grown to at least `nbytes`."""
        if self.staging is None or self.staging.nbytes < nbytes:
            vk = self.vk
            if self.staging is not None:
                self._destroy_buffer(self.staging)
                self.staging = None
            host = vk.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | vk.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
            self.staging = self._device_buffer(
                max(nbytes, 1 << 16), vk.VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                vk.VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                host | vk.VK_MEMORY_PROPERTY_HOST_CACHED_BIT, host)
        return self.staging

    def _mapped(self, b: DeviceBuffer) -> bool:
        coherent = self.vk.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
        block = b.region.block
        return (self.map_device_buffers and block.address != 0
                and self.ctx.memory_flags[block.type_index] & coherent != 0)

    def _release(self, b: DeviceBuffer) -> None:
        """Destroy a device buffer that is being replaced, and the descriptor sets (and
        recorded launches) that bind it."""
        self._finish()
        stale = [key for key in self.descriptor_sets if b.serial in key[1]]
        for key in stale:
            descriptor_set, pool = self.descriptor_sets.pop(key)
            self.launches = [launch for launch in self.launches if launch[1] != descriptor_set]
            call(self.vk.vkFreeDescriptorSets, self.ctx.device, pool, 1, [descriptor_set])
        self._destroy_buffer(b)

    def _destroy_buffer(self, b: DeviceBuffer) -> None:
        self.vk.vkDestroyBuffer(self.ctx.device, b.handle, None)
        self.ctx.allocator.free(b.region)

    def _upload(self, cmd, bound: list[DeviceBuffer]) -> None:
        """Bring the device copies whose host copy is newer up to date: through their
        mapping, or through the staging buffer and copies recorded in `cmd`. Device memory
        no upload covers is cleared first, as WebGPU's is, so no earlier buffer's bytes show."""
        vk = self.vk
        staged, recorded = [], False
        for b in bound:
            if not b.host_newer:
                if not b.zeroed:
                    vk.vkCmdFillBuffer(cmd, b.handle, 0, WHOLE_SIZE, 0)
                    b.zeroed = recorded = True
                continue
            if self._mapped(b):  # the GPU is idle (run() waited)
                self._write_mapped(b.region.block.address + b.region.offset, b)
            else:
                staged.append(b)
            b.host_newer, b.zeroed = False, True
        offsets, total = [], 0
        for b in staged:
            offsets.append(total)
            total += -(-b.nbytes // 16) * 16
        if staged:
            staging = self._staging(total)
            base = staging.region.block.address + staging.region.offset
            for b, offset in zip(staged, offsets):
                self._write_mapped(base + offset, b)
                self._copy(cmd, staging.handle, b.handle, offset, 0, b.nbytes)
            recorded = True
        if recorded:
            self._barrier(cmd, vk.VK_PIPELINE_STAGE_TRANSFER_BIT,
                          vk.VK_ACCESS_TRANSFER_WRITE_BIT, vk.VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          vk.VK_ACCESS_SHADER_READ_BIT | vk.VK_ACCESS_SHADER_WRITE_BIT)

    def _write_mapped(self, address: int, b: DeviceBuffer) -> None:
        """Copy b's host bytes to mapped device memory at `address`, zeros up to b.nbytes."""
        if type(self.memory) is HostMemory:  # plain addresses: one copy, no bytes object
            ctypes.memmove(address, b.host, b.host_bytes)
        else:
            ctypes.memmove(address, self.memory.read(b.host, b.host_bytes), b.host_bytes)
        ctypes.memset(address + b.host_bytes, 0, b.nbytes - b.host_bytes)

    def _read_mapped(self, address: int, b: DeviceBuffer) -> None:
        """Copy b's host bytes from mapped device memory at `address` to the host."""
        if type(self.memory) is HostMemory:
            ctypes.memmove(b.host, address, b.host_bytes)
        else:
            self.memory.write(b.host, ctypes.string_at(address, b.host_bytes))

    # -- descriptor sets -------------------------------------------------------------------

    def _descriptor_set(self, kernel: int, bound: list[DeviceBuffer]):
        key = (kernel, tuple(b.serial for b in bound))
        found = self.descriptor_sets.get(key)
        if found is not None:
            return found[0]
        k = self.pipelines[kernel]
        descriptor_set, pool = self._allocate_set(k.set_layout)
        vk = self.vk
        infos = [vk.VkDescriptorBufferInfo(buffer=b.handle, offset=0, range=WHOLE_SIZE)
                 for b in bound]
        writes = [vk.VkWriteDescriptorSet(dstSet=descriptor_set, dstBinding=binding,
                                          descriptorCount=1,
                                          descriptorType=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                          pBufferInfo=[info])
                  for binding, info in zip(k.bindings, infos)]
        if writes:
            vk.vkUpdateDescriptorSets(self.ctx.device, len(writes), writes, 0, None)
        self.descriptor_sets[key] = (descriptor_set, pool)
        return descriptor_set

    def _allocate_set(self, set_layout):
        """A descriptor set from the newest pool, or from a new one when that is full."""
        vk = self.vk
        if self.pools:
            info = vk.VkDescriptorSetAllocateInfo(descriptorPool=self.pools[-1],
                                                  descriptorSetCount=1,
                                                  pSetLayouts=[set_layout])
            try:
                return call(vk.vkAllocateDescriptorSets, self.ctx.device, info)[0], \
                    self.pools[-1]
            except VulkanCallError as e:
                if e.result not in ("VK_ERROR_OUT_OF_POOL_MEMORY", "VK_ERROR_FRAGMENTED_POOL"):
                    raise
        per_set = max([len(k.bindings) for k in self.pipelines] + [1])
        sets = 64
        sizes = [vk.VkDescriptorPoolSize(type=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                         descriptorCount=sets * per_set)]
        pool = call(vk.vkCreateDescriptorPool, self.ctx.device, vk.VkDescriptorPoolCreateInfo(
            flags=vk.VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, maxSets=sets,
            poolSizeCount=1, pPoolSizes=sizes), None)
        self.pools.append(pool)
        info = vk.VkDescriptorSetAllocateInfo(descriptorPool=pool, descriptorSetCount=1,
                                              pSetLayouts=[set_layout])
        return call(vk.vkAllocateDescriptorSets, self.ctx.device, info)[0], pool

    # -- command recording and submission -------------------------------------------------------

    def _begin(self):
        """The command buffer, begun, after a barrier that orders it after earlier
        submissions' shader writes and copies."""
        vk = self.vk
        cmd = self.command_buffer
        call(vk.vkBeginCommandBuffer, cmd, vk.VkCommandBufferBeginInfo(
            flags=vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT))
        stages = vk.VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | vk.VK_PIPELINE_STAGE_TRANSFER_BIT
        self._barrier(cmd, stages, vk.VK_ACCESS_SHADER_WRITE_BIT | vk.VK_ACCESS_TRANSFER_WRITE_BIT,
                      stages, vk.VK_ACCESS_SHADER_READ_BIT | vk.VK_ACCESS_SHADER_WRITE_BIT |
                      vk.VK_ACCESS_TRANSFER_READ_BIT | vk.VK_ACCESS_TRANSFER_WRITE_BIT)
        return cmd

    def _barrier(self, cmd, src_stage, src_access, dst_stage, dst_access) -> None:
        vk = self.vk
        barrier = vk.VkMemoryBarrier(srcAccessMask=src_access, dstAccessMask=dst_access)
        vk.vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, [barrier], 0, None, 0, None)

    def _copy(self, cmd, src, dst, src_offset: int, dst_offset: int, size: int) -> None:
        region = self.vk.VkBufferCopy(srcOffset=src_offset, dstOffset=dst_offset, size=size)
        self.vk.vkCmdCopyBuffer(cmd, src, dst, 1, [region])

    def _dispatch(self, cmd, k: Kernel, descriptor_set, push: bytes, grid) -> None:
        vk = self.vk
        vk.vkCmdBindPipeline(cmd, vk.VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline)
        vk.vkCmdBindDescriptorSets(cmd, vk.VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1,
                                   [descriptor_set], 0, None)
        if k.push_bytes:
            vk.vkCmdPushConstants(cmd, k.layout, vk.VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                  k.push_bytes, vk.ffi.from_buffer(push))
        vk.vkCmdDispatch(cmd, *grid)
        # The next dispatch may read what this one wrote.
        self._barrier(cmd, vk.VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      vk.VK_ACCESS_SHADER_WRITE_BIT, vk.VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      vk.VK_ACCESS_SHADER_READ_BIT | vk.VK_ACCESS_SHADER_WRITE_BIT)

    def _submit(self, cmd) -> None:
        """End and submit `cmd`; the GPU may still be running it when this returns."""
        vk = self.vk
        call(vk.vkEndCommandBuffer, cmd)
        submit = vk.VkSubmitInfo(commandBufferCount=1, pCommandBuffers=[cmd])
        with self.ctx.lock:
            call(vk.vkQueueSubmit, self.ctx.queue, 1, [submit], self.fence)
        self._pending = True

    def _finish(self) -> None:
        """Wait for the last submission, if it has not been waited for."""
        if self._pending:
            vk = self.vk
            self._pending = False
            call(vk.vkWaitForFences, self.ctx.device, 1, [self.fence], vk.VK_TRUE, NO_TIMEOUT)
            call(vk.vkResetFences, self.ctx.device, 1, [self.fence])
