"""What a package says of its arguments, from the generator: a strict TypeScript app compiles
against the generated index.d.ts without casts (and a wrong one does not); the shapes, scalars
and images that run() takes in Node, checked against the generator's constraints. The generator
is `sepia` of tests/glue/generators/pipelines.py: (c, x, y) buffers with dim(0) == 3, a float
scalar in [0, 1] and one that may be NaN."""

from __future__ import annotations

import base64
import json
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

import webhal as hl
from webhal import build
from webhal.runners.node import run_node_source
from webhal.testing import runtimes

GENERATORS = pathlib.Path(__file__).parent / "generators" / "pipelines.py"
TSC = pathlib.Path(__file__).resolve().parents[2] / "node_modules" / "typescript" / "bin" / "tsc"
TARGETS = ["wasm-32-wasmrt-wasm_simd128-webgpu", "wasm-32-wasmrt-wasm_simd128"]


@pytest.fixture(scope="module")
def sepia(tmp_path_factory, emscripten, node):
    """The sepia package (webgpu and simd variants) and its meta data."""
    root = tmp_path_factory.mktemp("types")
    meta = build.build(str(GENERATORS), "sepia", str(root / "sepia"), TARGETS, quiet=True)
    return root / "sepia", meta


def test_the_metadata_has_the_generators_axes_constraints_and_scalars(sepia):
    _, meta = sepia
    args = {a["name"]: a for a in meta["arguments"]}
    assert args["input"]["axes"] == args["output"]["axes"] == ["c", "x", "y"]
    assert [c["text"] for c in args["output"]["constraints"]] == [
        "output.dim(0).min() == 0", "output.dim(0).extent() == 3"]
    assert args["strength"]["range"] == [0.0, 1.0] and not args["strength"]["nonfinite"]
    assert args["offset"]["range"] == [None, None] and args["offset"]["nonfinite"]
    readme = (sepia[0] / "README.md").read_text()
    assert "over (c, x, y), shape [3, x, y]" in readme and "x first" not in readme
    assert "shape: [3, width, height]" in readme


_APP = """\
import { create, fromImageData, toImageData } from "sepia";
import type { GPUBufferLike } from "sepia";

const width = 8;
const height = 2;
const image = { data: new Uint8ClampedArray(4 * width * height), width, height };
const p = await create();
const reason: string = p.reason;
const input = fromImageData(image, { layout: "interleaved-rgb" });
const out = await p.run({ input, strength: 0.5, offset: 0 }, { shape: [3, width, height] });
const bytes: Uint8Array = out.data;  // the output's own typed array
const [channels, w, h]: [3, number, number] = out.shape;
const first: number = out.data[0] + channels + w + h + bytes.length;
const back = toImageData(out, { layout: "interleaved-rgb" });
const blob = new Blob([out.data, back.data]);  // BufferSources: not shared memory
declare const context: CanvasRenderingContext2D;
context.putImageData(back, 0, 0);
declare const buffer: GPUBufferLike;  // a GPUBuffer of p.device, on the webgpu variant
const onGpu = await p.run({ input: { data: buffer, shape: [3, width, height] }, strength: 1,
                            offset: first }, { shape: [3, width, height], data: buffer });
const same: GPUBufferLike = onGpu.data;
console.log(reason, same.size, blob.size);
"""

# Each line a mistake strict TypeScript must refuse, with what it says.
_WRONG = {
    "await p.run({ input, strength: 1, offset: 0 }, { shape: [4, 8, 2] });":
        "Type '4' is not assignable to type '3'",  # output.dim(0).extent() == 3
    "const f: Float32Array = out.data;": "is not assignable to type 'Float32Array",
    "const g: GPUBufferLike = out.data;":
        "missing the following properties from type 'GPUBufferLike'",
    "await p.run({ input: fromImageData(image), strength: 1, offset: 0 }, out);":
        "Type 'number' is not assignable to type '3'",  # planar [x, y, 4], not [3, x, y]
    "await create({ variant: 'threads' });":
        "Type '\"threads\"' is not assignable to type 'Variant",
}

_TSCONFIG = {"compilerOptions": {"strict": True, "noEmit": True, "target": "es2022",
                                 "module": "es2022", "moduleResolution": "bundler",
                                 "lib": ["es2022", "dom"], "types": []}}


def test_a_strict_typescript_app_needs_no_casts(sepia, tmp_path):
    if not TSC.is_file():
        runtimes.missing("TypeScript", f"{TSC} is missing", "npm ci (it is a dev dependency)")
    directory, _ = sepia
    app = tmp_path / "app"
    (app / "node_modules").mkdir(parents=True)
    shutil.copytree(directory, app / "node_modules" / "sepia")
    # The app as it is (app.ts) and with one mistake at a time (wrong_<i>.ts), each file a
    # module of its own, checked by one tsc run (tsc takes seconds to start and load the DOM's
    # types: a run a file took 6 times as long); each error line starts with its file and line.
    files = {"app.ts": _APP, **{f"wrong_{i}.ts": _APP + wrong + "\n"
                                for i, wrong in enumerate(_WRONG)}}
    for name, text in files.items():
        (app / name).write_text(text)
    (app / "tsconfig.json").write_text(json.dumps({**_TSCONFIG, "files": list(files)}))
    result = subprocess.run([shutil.which("node"), str(TSC), "-p", str(app)], cwd=app,
                            capture_output=True, text=True, timeout=300)
    errors: dict[str, list[str]] = {name: [] for name in files}
    last = None
    for line in result.stdout.splitlines():
        name = line.split("(", 1)[0]
        if name in errors:
            last = name
        elif last and line.startswith(" "):  # a message's next lines
            name = last
        else:
            assert not line.strip(), f"tsc said something of no app file: {result.stdout}"
            continue
        errors[name].append(line)
    assert result.returncode != 0, f"tsc accepted every app: {result.stdout}"
    assert errors["app.ts"] == [], result.stdout + result.stderr
    # The same app with one mistake fails where the mistake is, and only there.
    lines = _APP.count("\n")
    for i, (wrong, said) in enumerate(_WRONG.items()):
        found = errors[f"wrong_{i}.ts"]
        assert found, f"tsc accepted: {wrong}"
        assert all(line.startswith(f"wrong_{i}.ts({lines + 1},") for line in found
                   if not line.startswith(" ")), (wrong, found)
        assert said in "\n".join(found), (wrong, found)


_RUN = """
import { create, fromImageData, toImageData } from %(index)s;
const [w, h] = [5, 3];
const image = { data: Uint8ClampedArray.from({ length: w * h * 4 }, (_, i) => (i * 37) & 255),
                width: w, height: h };
const p = await create({ variant: 'simd' });
const input = fromImageData(image, { layout: 'interleaved-rgb' });
const out = await p.run({ input, strength: 0.75, offset: 2 }, { shape: [3, w, h] });
const rgba = toImageData(out, { layout: 'interleaved-rgb' });
const result = { input: Buffer.from(input.data).toString('base64'),
                 output: Buffer.from(out.data).toString('base64'), shape: out.shape,
                 array: out.data.constructor.name, rgba: Array.from(rgba.data.subarray(0, 8)) };
const nan = await p.run({ input, strength: 0.5, offset: NaN }, { shape: [3, w, h] });
result.nan = Array.from(nan.data.subarray(0, 3));
const errors = {
  bad_output: [{ input, strength: 0.5, offset: 0 }, { shape: [4, w, h] }],
  bad_input: [{ input: { data: new Uint8Array(4 * w * h), shape: [4, w, h] }, strength: 0.5,
            offset: 0 }, { shape: [3, w, h] }],
  planar: [{ input: fromImageData(image, { layout: 'rgb' }), strength: 0.5, offset: 0 },
           { shape: [3, w, h] }],
  nan_strength: [{ input, strength: NaN, offset: 0 }, { shape: [3, w, h] }],
  infinite: [{ input, strength: -Infinity, offset: 0 }, { shape: [3, w, h] }],
  range: [{ input, strength: 1.5, offset: 0 }, { shape: [3, w, h] }],
};
for (const [name, [i, o]] of Object.entries(errors)) {
  try { await p.run(i, o); result[name] = 'no error'; }
  catch (e) { result[name] = `${e.constructor.name}: ${e.message}`; }
}
console.log(JSON.stringify(result));
"""


def test_shapes_scalars_and_images_are_checked_against_the_generator(sepia):
    directory, _ = sepia
    index = json.dumps((directory / "index.js").as_uri())
    out = json.loads(run_node_source(_RUN % {"index": index}).stdout)
    pixels = np.frombuffer(base64.b64decode(out["input"]), np.uint8).reshape(3, 5, 3)
    cls = build.load_generators(str(GENERATORS))["sepia"]
    g = cls()
    pipeline = g.build_pipeline()
    values = {"input": hl.Buffer(pixels), "strength": 0.75, "offset": 2.0}
    for p in g.inputs():
        p.set(values[p.name()])
    want = np.asarray(pipeline.realize([3, 5, 3], hl.Target("reference")))
    got = np.frombuffer(base64.b64decode(out["output"]), np.uint8).reshape(want.shape)
    np.testing.assert_array_equal(got, want)
    assert out["shape"] == [3, 5, 3] and out["array"] == "Uint8Array"
    assert out["rgba"] == [*got.reshape(-1)[:3], 255, *got.reshape(-1)[3:6], 255]
    assert out["nan"] == [0, 0, 0]  # NaN passes where the generator allows it
    assert out["bad_output"] == ("RangeError: sepia.run: output.shape[0] is 4, but the generator "
                             "requires output.dim(0).extent() == 3; output's shape is "
                             "[3, x, y], not [4, 5, 3]")
    assert out["bad_input"].startswith("RangeError: sepia.run: input.shape[0] is 4, but the "
                                   "generator requires input.dim(0).extent() == 3")
    assert out["planar"].startswith("RangeError: sepia.run: input.shape[0] is 5, but the "
                                    "generator requires input.dim(0).extent() == 3")
    assert out["nan_strength"] == (
        "RangeError: sepia.run: strength is NaN, and the generator takes only finite values "
        "for it (float32); declare it hl.InputScalar(hl.Float(..), allow_nonfinite=True) to "
        "pass NaN or infinities")
    assert out["infinite"].startswith("RangeError: sepia.run: strength is -Infinity")
    assert out["range"] == ("RangeError: sepia.run: strength is 1.5, outside the range the "
                            "generator sets for it, [0, 1]")
