"""Check the frames benchmarks/webcam_chromium.mjs captured (--out DIR) against the reference
evaluator, as tests/gpu_images/test_webcam.py does for its own run: each captured frame's output
(as the canvas showed it) must equal the unsharp demo's reference output on that frame's input
(the paused frame as the variant read it). Prints each run's adapter, camera size, frames per
second and stage times, and exits non-zero when a frame differs.

    python -m benchmarks.webcam_check DIR [DIR ...]
"""

from __future__ import annotations

import base64
import json
import pathlib
import sys

import numpy as np

from webhal.demo_page import load
from webhal.testing.harness import Subject


def _decoded(buffer: dict) -> np.ndarray:
    data = np.frombuffer(base64.b64decode(buffer["data"]), dtype=np.uint8)
    return data.reshape(buffer["shape"][::-1]).copy()


def check(path: pathlib.Path, demo) -> bool:
    got = json.loads(path.read_text())
    if "error" in got:
        print(f"{path.name}: error {got['error']}")
        return False
    ok_all = True
    for frame in got["frames"]:
        image = _decoded(frame["input"])
        subject = Subject(f"{demo.path}:{demo.name}", inputs={"input": image, **got["scalars"]},
                          output_shapes={"output": image.shape}, tolerance=0)
        ok, error, message = subject.compare({"output": _decoded(frame["output"])})
        ok_all &= ok and image.std() > 5
        adapter = got["adapter"] or {}  # none on the CPU variants
        print(f"{path.name}: {got['variant']} on {adapter.get('vendor', 'CPU')}/"
              f"{adapter.get('architecture', '')}, frame {image.shape[2]}x{image.shape[1]}: "
              f"{'matches' if ok else 'DIFFERS'} (largest difference {error}); "
              f"{got['fps']:.1f} fps, stages {got['stages']}")
        if not ok:
            print(message)
    return ok_all


def main(argv: list[str]) -> int:
    demo = load("unsharp")
    results = [check(p, demo) for d in argv for p in sorted(pathlib.Path(d).glob("*.json"))]
    return 0 if results and all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
