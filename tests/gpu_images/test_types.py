"""index.d.ts of a package with image arguments: a strict TypeScript app passes DOM image
sources and a canvas context without casts, gets the target back as the output's data, and an
ImageBitmap as an output's target does not compile."""

from __future__ import annotations

import json
import shutil
import subprocess

from tests.glue.test_npm_types import _TSCONFIG, TSC
from webhal.testing import runtimes

_APP = """import { create } from 'image_kinds';
declare const bitmap: ImageBitmap;
declare const video: HTMLVideoElement;
declare const frame: VideoFrame;
declare const canvas: HTMLCanvasElement;
declare const context: { getCurrentTexture(): unknown; configure(config: unknown): void };
const p = await create({ variant: 'webgpu' });
const [w, h] = [video.videoWidth, video.videoHeight];
const out = await p.run({ planar: video, interleaved: { data: frame, shape: [3, w, h] },
  grey: canvas, level: bitmap }, { planar_out: { shape: [w, h, 3], data: context },
  interleaved_out: { shape: [3, w, h] }, grey_out: { shape: [w, h] },
  level_out: { shape: [w, h] } });
const shown: typeof context = out.planar_out.data;
const level: Float32Array = out.level_out.data;
export { shown, level };
"""
_WRONG = ("await p.run({ planar: bitmap, interleaved: frame, grey: canvas, level: bitmap }, "
          "{ planar_out: { shape: [w, h, 3], data: bitmap }, "
          "interleaved_out: { shape: [3, w, h] }, "
          "grey_out: { shape: [w, h] }, level_out: { shape: [w, h] } });\n")


def test_image_sources_and_targets_type_check(image_kinds_package, tmp_path):
    if not TSC.is_file():
        runtimes.missing("TypeScript", f"{TSC} is missing", "npm ci (it is a dev dependency)")
    app = tmp_path / "app"
    (app / "node_modules").mkdir(parents=True)
    shutil.copytree(image_kinds_package, app / "node_modules" / "image_kinds")
    files = {"app.ts": _APP, "wrong.ts": _APP + _WRONG}
    for name, text in files.items():
        (app / name).write_text(text)
    (app / "tsconfig.json").write_text(json.dumps({**_TSCONFIG, "files": list(files)}))
    result = subprocess.run([shutil.which("node"), str(TSC), "-p", str(app)], cwd=app,
                            capture_output=True, text=True, timeout=300)
    lines = [line for line in result.stdout.splitlines() if line and not line.startswith(" ")]
    assert not [line for line in lines if line.startswith("app.ts")], result.stdout
    wrong = [line for line in lines if line.startswith("wrong.ts")]
    assert wrong and all(line.startswith(f"wrong.ts({_APP.count(chr(10)) + 1},")
                         for line in wrong), result.stdout
