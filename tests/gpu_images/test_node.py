"""Image inputs and outputs on dawn.node (SwiftShader): GPUTextures of every format the runtime
reads (rgba8unorm, r8unorm, r32float) and ImageData in, GPUTextures (rgba8unorm, bgra8unorm,
r8unorm, r32float) out, against the reference evaluator; the wrong kinds are named errors,
on the webgpu variant and on a CPU variant (tests/gpu_images/node_kinds.mjs does the runs)."""

from __future__ import annotations

import json
import pathlib

import numpy as np

from tests.gpu_images.conftest import luma, reference
from webhal.runners.node import run_node

W, H = 37, 11  # odd: packed words straddle rows and planes
SCRIPT = pathlib.Path(__file__).parent / "node_kinds.mjs"


def test_textures_and_image_data_in_and_out(image_kinds_package, dawn_node):
    result = run_node(SCRIPT, [(image_kinds_package / "index.js").as_uri(), str(W), str(H)],
                      dawn=True, timeout_s=180, what="image kinds on dawn.node")
    got = json.loads(result.stdout.strip().splitlines()[-1])
    rgba = np.array(got["rgba"], np.uint8).reshape(H, W, 4)
    other = np.array(got["other"], np.uint8).reshape(H, W, 4)
    grey = np.array(got["grey"], np.uint8).reshape(H, W)
    level = np.array(got["level"], np.float32).reshape(H, W)

    # Run 1: rgba8unorm planar, ImageData interleaved, r8unorm grey, r32float level; textures out.
    planar_out, interleaved_out, grey_out, level_out = reference(
        rgba[..., :3].transpose(2, 0, 1), other[..., :3], grey, level)
    run1 = got["run1"]
    assert run1["returned"] == dict.fromkeys(run1["returned"], True)  # the targets come back
    tex = np.array(run1["planar_out"], np.uint8).reshape(H, W, 4)
    np.testing.assert_array_equal(tex[..., :3].transpose(2, 0, 1), planar_out)
    assert (tex[..., 3] == 255).all()  # three channels: opaque
    tex = np.array(run1["interleaved_out"], np.uint8).reshape(H, W, 4)  # bgra8unorm, swapped
    np.testing.assert_array_equal(tex[..., :3], interleaved_out)
    np.testing.assert_array_equal(np.array(run1["grey_out"], np.uint8).reshape(H, W), grey_out)
    np.testing.assert_array_equal(np.array(run1["level_out"], np.float32).reshape(H, W), level_out)
    # The unpack kernels at 12x5 and 3x4 (planar a kernel invocation per 4 pixels) and 13x5.
    assert got["unpacked"] == {f"{layout} {size}": 0 for size in ("12x5", "13x5", "3x4")
                               for layout in ("planar", "interleaved")}
    # Run 1b: bgra8unorm and r8unorm targets through the render pass (run 1: a kernel's bytes).
    assert got["run1b"] == {k: run1[k] for k in ("interleaved_out", "grey_out")}

    # Run 3: textures in and out only, the same objects twice: the second run is one
    # submission (unpack, pipeline and pack kernels in one command encoder); both equal run 1.
    run3 = got["run3"]
    assert run3["submits"] == [3, 1], run3["submits"]
    for i in ("0", "1"):
        assert run3[i] == {k: run1[k] for k in run3[i]}, i

    # Run 4: a grey uint8 output 256 wide copied into its r8unorm target without a kernel.
    assert got["direct"] == 0

    # Run 2: ImageData planar, rgba8unorm interleaved, colour into the grey inputs (luma).
    level2 = ((77 * other[..., 0].astype(np.float32) + 150 * other[..., 1].astype(np.float32)
               + 29 * other[..., 2].astype(np.float32)) / 256 / 255).astype(np.float32)
    planar_out, interleaved_out, grey_out, level_out = reference(
        other[..., :3].transpose(2, 0, 1), rgba[..., :3], luma(rgba), level2)
    run2 = got["run2"]
    np.testing.assert_array_equal(np.array(run2["planar_out"], np.uint8).reshape(3, H, W),
                                  planar_out)
    np.testing.assert_array_equal(np.array(run2["interleaved_out"], np.uint8).reshape(H, W, 3),
                                  interleaved_out)
    np.testing.assert_array_equal(np.array(run2["grey_out"], np.uint8).reshape(H, W), grey_out)
    np.testing.assert_allclose(np.array(run2["level_out"], np.float32).reshape(H, W), level_out,
                               atol=1e-6)

    errors = got["errors"]
    assert errors.pop("afterErrors") is None  # the pipeline runs on after the failed calls
    expected = {
        "floatForUint8": "ImageKindError: image_kinds.run: input grey is uint8 and its texture "
                         "is r32float: float textures feed float inputs; pass an r8unorm texture",
        "noBinding": "ImageKindError: image_kinds.run: the GPUTexture of input planar needs the "
                     "usage TEXTURE_BINDING",
        "wrongShape": f"RangeError: image_kinds.run: input planar's GPUTexture is {W}x{H} and "
                      f"planar has 3 dimensions: its shape must be [{W}, {H}, 3 or 4] (planar) "
                      f"or [3 or 4, {W}, {H}] (interleaved), not [{W + 1}, {H}, 3]",
        "singleForColour": "ImageKindError: image_kinds.run: input planar is an r8unorm texture, "
                           "one channel, for a colour input",
        "targetSize": f"RangeError: image_kinds.run: the target of output grey_out is "
                      f"{W + 2}x{H} and grey_out has 2 dimensions: its shape must be "
                      f"[{W + 2}, {H}], not [{W}, {H}]",
        "otherDevice": "Error: image_kinds.run: WebGPU refused the image input planar (a "
                       "texture must be of p.device",
        "otherDeviceTarget": "Error: image_kinds.run: WebGPU refused the output target "
                             "planar_out (a texture or canvas of p.device",
        "cpuTexture": "ImageKindError: image_kinds.run: input planar is a GPUTexture, which only "
                      "the webgpu variant takes; this pipeline runs the simd variant: pass "
                      "{ data: Uint8Array, shape }",
        "cpuImageData": "ImageKindError: image_kinds.run: input grey is an ImageData, which only "
                        "the webgpu variant takes; this pipeline runs the simd variant: pass "
                        "{ data: Uint8Array, shape } (webhal's fromImageData makes one",
        "cpuTarget": "ImageKindError: image_kinds.run: output grey_out is a GPUTexture, which "
                     "only the webgpu variant takes; this pipeline runs the simd variant: pass "
                     "{ shape } for a Uint8Array and draw it with webhal's toImageData",
    }
    for name, start in expected.items():
        assert errors[name] is not None and errors[name].startswith(start), (name, errors[name])
