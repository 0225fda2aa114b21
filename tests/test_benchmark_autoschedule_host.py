"""benchmarks.autoschedule --host: each suite pipeline JIT-compiled four ways (webhal's hand
schedule and autoschedule for the host, Halide's Mullapudi2016 and Adams2019 on the same
algorithm); every output must be numpy's."""

from __future__ import annotations

import numpy as np
import pytest

from tests.halide_peer import require

require("halide")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["blur", "hist_equalize", "gaussian9"])
def test_host_implementations_compute_the_pipeline(name):
    from benchmarks import suite
    from benchmarks.autoschedule_host import _calls
    spec = suite.SUITE[name]
    calls, outputs, seconds = _calls(spec, with_halide=True)
    assert list(calls) == ["hand", "auto", "Mullapudi2016", "Adams2019"]
    assert set(seconds) == {"auto", "Mullapudi2016", "Adams2019"}
    built = spec.build(__import__("webhal"))
    expected = spec.numpy_impl(*spec.inputs(), **built.params)
    for label, call in calls.items():
        call()
        got = np.asarray(outputs[label])
        if spec.is_float:
            np.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-6, err_msg=label)
        else:
            np.testing.assert_array_equal(got, expected, err_msg=label)
