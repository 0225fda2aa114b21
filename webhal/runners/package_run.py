"""One run of a built npm package, as runtime_js/harness.js does it in Node or in a page: the
spec that goes in (inputs as base64 of their bytes, Halide's axis order) and what comes back
(outputs as numpy arrays, per-run times, the adapter)."""

from __future__ import annotations

import base64
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

# numpy dtype -> the typed array runtime_js reads it as.
_ARRAYS = {"bool": "Uint8Array", "int8": "Int8Array", "uint8": "Uint8Array",
           "int16": "Int16Array", "uint16": "Uint16Array", "int32": "Int32Array",
           "uint32": "Uint32Array", "float32": "Float32Array", "float64": "Float64Array"}
_DTYPES = {array: np.dtype(name) for name, array in _ARRAYS.items() if name != "bool"}


@dataclass
class PackageRun:
    """What one variant of a package did: its outputs (numpy order), the times of the timed
    runs in ms (each the mean of a batch of `batch` runs), create() in ms, the WebGPU adapter
    (None on wasm variants) and the console lines."""

    variant: str
    target: str
    outputs: dict[str, np.ndarray]
    times_ms: list[float]
    batch: int
    create_ms: float
    adapter: dict | None
    console: list[str] = field(default_factory=list)

    @property
    def median_ms(self) -> float:
        return statistics.median(self.times_ms) if self.times_ms else float("nan")

    @property
    def adapter_name(self) -> str:
        return adapter_label(self.adapter)


def adapter_label(adapter: dict | None) -> str:
    """"google swiftshader" and the like, from runtime_js's adapterInfo; "cpu" without one
    (the wasm variants)."""
    if not adapter:
        return "cpu"
    parts = (adapter.get("vendor"), adapter.get("architecture"))
    return " ".join(p for p in parts if p) or adapter.get("description") or "WebGPU"


def spec(variant: str | None, inputs: Mapping[str, object],
         output_shapes: Mapping[str, Sequence[int]], samples: int = 0,
         min_batch_ms: float = 20) -> dict:
    """The harness's spec: `inputs` maps names to numpy arrays (numpy order) or numbers,
    `output_shapes` names to shapes in numpy order."""
    encoded = {}
    for name, value in inputs.items():
        if isinstance(value, np.ndarray):
            array = np.ascontiguousarray(value)
            if array.dtype.name not in _ARRAYS:
                raise TypeError(f"input {name}: no typed array for {array.dtype}")
            encoded[name] = {"array": _ARRAYS[array.dtype.name], "shape": list(array.shape[::-1]),
                             "data": base64.b64encode(array.tobytes()).decode()}
        else:
            encoded[name] = {"scalar": value.item() if hasattr(value, "item") else value}
    return {"variant": variant, "inputs": encoded, "samples": samples, "minBatchMs": min_batch_ms,
            "outputs": {n: {"shape": list(s)[::-1]} for n, s in output_shapes.items()}}


def result(reply: dict, console: Sequence[str] = ()) -> PackageRun:
    """The harness's reply as a PackageRun."""
    outputs = {}
    for name, out in reply["outputs"].items():
        dtype = _DTYPES[out["array"]]
        data = np.frombuffer(base64.b64decode(out["data"]), dtype=dtype)
        outputs[name] = data.reshape(out["shape"][::-1]).copy()
    return PackageRun(variant=reply["variant"], target=reply["target"], outputs=outputs,
                      times_ms=list(reply["timesMs"]), batch=reply["batch"],
                      create_ms=reply["createMs"], adapter=reply.get("adapter"),
                      console=list(console))

