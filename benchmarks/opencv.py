"""OpenCV.js (npm `@techstark/opencv-js`) on the box blur, in Node, when it is installed.

The package is not among webhal's npm dependencies; install it with
`npm install --save-dev @techstark/opencv-js` (or point OPENCV_JS at an opencv.js file). Without
it this part is skipped with a note.

What is timed: `cv.blur` with a 3x3 kernel on a CV_16UC1 view of the blur input's interior
(1536x1024 inside the 1538x1026 input, so the border comes from real neighbours, as in the
blur app). OpenCV divides once by 9 and rounds where the blur app divides by 3 twice and
truncates, so outputs differ by a unit here and there: only the time is compared.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from benchmarks.measure import Measurement, Settings, load_average
from webhal.errors import ToolchainError
from webhal.runners.node import run_node_source

REPO = Path(__file__).resolve().parent.parent
PACKAGE = "@techstark/opencv-js"
INSTALL = f"npm install --save-dev {PACKAGE}"

_SCRIPT = r"""
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
const [file, input, width, height, batches, minBatchMs, warmupMs] = process.argv.slice(2);
const require = createRequire(import.meta.url);
let cv = require(file);
if (cv instanceof Promise) cv = await cv;
else if (!cv.Mat) await new Promise((resolve) => { cv.onRuntimeInitialized = resolve; });
const W = Number(width), H = Number(height);
const bytes = readFileSync(input);
const src = new cv.Mat(H + 2, W + 2, cv.CV_16UC1);
src.data.set(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
const interior = src.roi(new cv.Rect(1, 1, W, H));
const dst = new cv.Mat();
const ksize = new cv.Size(3, 3), anchor = new cv.Point(-1, -1);
const call = () => cv.blur(interior, dst, ksize, anchor, cv.BORDER_REPLICATE);
let start = performance.now(), warm = 0;
do { call(); warm++; } while (warm < 2 || performance.now() - start < Number(warmupMs));
const perCall = (performance.now() - start) / warm;
const calls = Math.max(1, Math.ceil(Number(minBatchMs) / Math.max(perCall, 1e-6)));
const times = [];
for (let k = 0; k < Number(batches); k++) {
  start = performance.now();
  for (let i = 0; i < calls; i++) call();
  times.push((performance.now() - start) / calls);
}
times.sort((a, b) => a - b);
const n = times.length;
const median = n % 2 ? times[(n - 1) / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
console.log(JSON.stringify({median_ms: median, min_ms: times[0], calls_per_batch: calls,
                            rows: dst.rows, cols: dst.cols}));
process.exit(0);
"""


def find_opencv_js() -> Path | None:
    """opencv.js from $OPENCV_JS, else from the repository's node_modules; None when absent."""
    override = os.environ.get("OPENCV_JS")
    if override:
        return Path(override) if Path(override).is_file() else None
    path = REPO / "node_modules" / PACKAGE / "dist" / "opencv.js"
    return path if path.is_file() else None


def measure_opencv_blur(input_file: Path, width: int, height: int,
                        settings: Settings) -> Measurement | str:
    """A Measurement, or a note saying why OpenCV.js was skipped."""
    script = find_opencv_js()
    if script is None:
        return (f"OpenCV.js skipped: {PACKAGE} is not installed (run `{INSTALL}`, "
                "or set OPENCV_JS to an opencv.js file)")
    args = [str(script), str(input_file), str(width), str(height), str(settings.batches),
            str(settings.min_batch_ms), str(settings.warmup_ms)]
    try:
        result = run_node_source(_SCRIPT, args, timeout_s=300, what="OpenCV.js blur")
        reply = json.loads(result.stdout.strip().splitlines()[-1])
    except (ToolchainError, ValueError, IndexError) as exc:
        return Measurement("blur", "node", "opencv.js", "opencv.js", False,
                           error=str(exc).splitlines()[0])
    return Measurement("blur", "node", "opencv.js", "opencv.js", True, reply["median_ms"],
                       reply["min_ms"], details={"calls_per_batch": reply["calls_per_batch"],
                                                 "opencv_js": str(script)},
                       load=[v for v in [load_average()] if v is not None])
