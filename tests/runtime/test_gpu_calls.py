"""One dispatcher answers the webhal_gpu_* calls for the host JIT and wasmtime: a failure is
reported, never raised into compiled code, and returns the code abi.py names."""

import pytest

from webhal import abi
from webhal.errors import HalideError
from webhal.runtime import gpu_calls
from webhal.runtime.webgpu import WebGPURuntime


class FakeRuntime:
    API = "WebGPU"
    error = None

    def __init__(self, result=0, error=None):
        self.result, self.pending = result, error
        self.calls = []

    def run_packed(self, *args):
        self.calls.append(args)
        if isinstance(self.result, Exception):
            raise self.result
        self.error = self.pending
        return self.result

    buffer = host_dirty = copy_to_host = run_packed


def test_every_call_has_a_runtime_method():
    assert set(gpu_calls.METHODS) == set(abi.GPU_CALLS)
    for method in gpu_calls.METHODS.values():
        assert callable(getattr(WebGPURuntime, method))


def test_success_passes_arguments_through():
    rt, reports = FakeRuntime(), []
    assert gpu_calls.call(rt, "webhal_gpu_run", (0, 1, 2, 3, 64, 8), reports.append) == 0
    assert rt.calls == [(0, 1, 2, 3, 64, 8)] and reports == []


@pytest.mark.parametrize("name", sorted(abi.GPU_CALLS))
def test_an_exception_returns_the_calls_failure_code(name):
    reports = []
    code = gpu_calls.call(FakeRuntime(RuntimeError("lost")), name, (1,), reports.append)
    assert code == abi.ERROR_CODES[abi.GPU_CALLS[name].fails_with]
    assert reports == [("WebGPU: lost", HalideError)]


def test_a_failure_code_reports_the_runtimes_error_once():
    failure = ("kernel k needs too many workgroups", HalideError)
    rt, reports = FakeRuntime(-23, failure), []
    assert gpu_calls.call(rt, "webhal_gpu_run", (0,), reports.append) == -23
    assert reports == [failure] and rt.error is None


def test_no_runtime_is_an_internal_error():
    reports = []
    code = gpu_calls.call(None, "webhal_gpu_buffer", (0, 0, 4, 1), reports.append)
    assert code == abi.ERROR_CODES["internal_error"] and len(reports) == 1
