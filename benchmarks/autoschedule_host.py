"""Autoschedules on the host: `python -m benchmarks.autoschedule --host`.

The suite's pipelines (benchmarks/suite.py) JIT-compiled for the machine the benchmark runs on,
four ways: webhal with its hand schedule, webhal autoscheduled for target "host" (what
`realize` in Python runs), and the same algorithm over Halide (`algorithm_only`) with its
Mullapudi2016 and Adams2019 plugins, compiled by Halide for its JIT target. All four run in
this process, side by side (benchmarks.measure.time_interleaved: one batch each a round, the
order reversed every other round), into preallocated outputs; a figure is the median of the
per-round ratios, with their range. Outputs are compared with the hand schedule's.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from benchmarks.autoschedule import algorithm_only, geomean, halide_plugin, set_estimates
from benchmarks.host import _bind, _entry_point, _jit_target
from benchmarks.measure import checksum, load_average, time_interleaved

HALIDE_AUTOSCHEDULERS = ("Mullapudi2016", "Adams2019")


def _calls(spec, with_halide: bool) -> tuple[dict, dict, dict]:
    """name -> a call of each implementation's compiled pipeline, its output array, and the
    seconds each autoscheduler took."""
    import webhal
    arrays = spec.inputs()
    calls, outputs, seconds = {}, {}, {}
    sides = [("hand", webhal, None), ("auto", webhal, "Webhal")]
    if with_halide:
        import halide
        sides += [(name, halide, name) for name in HALIDE_AUTOSCHEDULERS]
    for label, hl, scheduler in sides:
        module = hl if scheduler is None else algorithm_only(hl)
        built, values, output = _bind(spec, module, arrays)
        target = _jit_target(hl)
        if scheduler is not None:
            if hl is not webhal:
                hl.load_plugin(halide_plugin(scheduler))
            set_estimates(hl, built.output, built.args, arrays, spec.output_shape,
                          built.params)
            start = time.perf_counter()
            hl.Pipeline(built.output).apply_autoscheduler(
                target, hl.AutoschedulerParams(scheduler, {}))
            seconds[label] = time.perf_counter() - start
        calls[label] = _entry_point(hl, built, values, output, target)
        outputs[label] = output
    return calls, outputs, seconds


def host_main(args) -> int:
    """The table of --host: per pipeline, auto / hand and each Halide autoschedule / webhal's,
    then their geometric means."""
    from benchmarks import suite
    names = [n for part in (args.pipelines or "suite").split(",")
             for n in (list(suite.SUITE) if part == "suite" else [part])]
    unknown = [n for n in names if n not in suite.SUITE]
    if unknown:
        print(f"--host runs the suite's pipelines ({', '.join(suite.SUITE)}), not "
              f"{', '.join(unknown)}")
        return 2
    rounds = args.rounds or 15
    print(f"host JIT, {rounds} interleaved rounds of ~30 ms a side; load before "
          f"{load_average() or 0:.2f}")
    halide = () if args.no_halide else HALIDE_AUTOSCHEDULERS
    print(f"{'pipeline':16} {'hand ms':>8} {'auto ms':>8} {'auto/hand':>18} "
          + "".join(f"{n + '/auto':>24}" for n in halide) + "  outputs")
    ratios: dict[str, list[float]] = {}
    per_round: dict[str, list[list[float]]] = {}
    for name in names:
        spec = suite.SUITE[name]
        try:
            calls, outputs, _ = _calls(spec, not args.no_halide)
        except Exception as e:  # noqa: BLE001 - a pipeline one library cannot build is reported
            print(f"{name:16} failed to build: {str(e).splitlines()[0][:120]}")
            continue
        for call in calls.values():
            call()
        sums = {k: checksum(np.asarray(v)) for k, v in outputs.items()}
        same = "same" if len(set(sums.values())) == 1 else f"DIFFER {sums}"
        got = time_interleaved(calls, rounds, batch_ms=30, warmup_ms=100)
        ms = {k: statistics.median(v["wall_ms"]) for k, v in got.items()}
        cells = []
        for num, den in [("auto", "hand"), *((n, "auto") for n in calls if n not in
                                              ("hand", "auto"))]:
            r = [a / b for a, b in zip(got[num]["wall_ms"], got[den]["wall_ms"])]
            key = f"{num}/{den}"
            ratios.setdefault(key, []).append(statistics.median(r))
            per_round.setdefault(key, []).append(r)
            cells.append(f"{statistics.median(r):.2f} ({min(r):.2f}-{max(r):.2f})")
        print(f"{name:16} {ms['hand']:8.3f} {ms['auto']:8.3f} "
              + "".join(f"{c:>{18 if i == 0 else 24}}" for i, c in enumerate(cells))
              + f"  {same}", flush=True)
    for key, values in ratios.items():
        rounds_geo = [geomean(col) for col in zip(*per_round[key])]
        print(f"geometric mean {key}: {geomean(values):.2f} over {len(values)} pipelines "
              f"(per round {min(rounds_geo):.2f}-{max(rounds_geo):.2f}), worst "
              f"{max(values):.2f}")
    print(f"load after {load_average() or 0:.2f}")
    return 0
