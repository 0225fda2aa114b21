"""The host's thread pool under load: many short jobs back to back (workers spinning), jobs after
pauses longer than any spin (workers asleep, woken by the next job), and jobs whose tasks outlast
the caller's spin (the caller asleep, woken by the last worker out). More threads than cores, so
that threads are preempted at every step of the protocol. Every job's output is checked."""

import ctypes
import threading
import time

import numpy as np
import pytest

import webhal as hl
from webhal.runners import host

x, y = hl.Var("x"), hl.Var("y")


@pytest.fixture
def many_threads(monkeypatch):
    monkeypatch.setenv("HL_NUM_THREADS", "5")


def _rows(width: int, height: int, work: int) -> tuple[hl.Func, np.ndarray]:
    """x + y through `work` dependent steps of a wrapping linear congruence per pixel (a
    task's length)."""
    r = hl.RDom([(0, work)])
    f = hl.Func(f"rows_{width}x{height}_{work}")
    f[x, y] = x + y
    f[x, y] = f[x, y] * 1103515245 + 12345 + r.x
    f.parallel(y)
    f.update(0).parallel(y)
    expected = np.add.outer(np.arange(height), np.arange(width)).astype(np.int32)
    with np.errstate(over="ignore"):
        for step in range(work):
            expected = expected * np.int32(1103515245) + np.int32(12345 + step)
    return f, expected


def test_short_jobs_back_to_back_and_after_pauses(many_threads):
    f, expected = _rows(64, 40, 1)
    f.compile_jit(hl.Target("host"))
    for call in range(400):
        if call % 50 == 49:
            time.sleep(0.02)  # every worker stops spinning and sleeps
        np.testing.assert_array_equal(np.asarray(f.realize([64, 40])), expected,
                                      err_msg=f"call {call}")


def test_tasks_longer_than_the_callers_spin(many_threads):
    f, expected = _rows(256, 6, 3000)
    f.compile_jit(hl.Target("host"))
    for call in range(6):
        np.testing.assert_array_equal(np.asarray(f.realize([256, 6])), expected,
                                      err_msg=f"call {call}")


# -- halide_do_par_for itself, with Python tasks whose lengths the test sets ---------------------

TASK = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p)
PAR_FOR = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, TASK, ctypes.c_int32, ctypes.c_int32,
                           ctypes.c_void_p)


@pytest.fixture
def par_for(monkeypatch):
    """halide_do_par_for of the host JIT's pool, on two threads."""
    monkeypatch.setenv("HL_NUM_THREADS", "2")
    host.follow_hl_num_threads()
    yield PAR_FOR(host._register_runtime().get_function_address("halide_do_par_for"))
    monkeypatch.undo()
    host.follow_hl_num_threads()


def _tasks(seconds: dict[int, float], codes: dict[int, int] | None = None):
    """A task that sleeps seconds[index], notes its thread and returns codes[index] (0)."""
    ran: dict[int, int] = {}

    def task(_user_context, index, _closure):
        time.sleep(seconds.get(index, 0))
        ran[index] = threading.get_ident()
        return (codes or {}).get(index, 0)

    return TASK(task), ran


def test_a_sleeping_worker_is_woken_by_the_next_job(par_for):
    par_for(None, *_tasks({})[:1], 0, 2, None)  # the worker exists
    time.sleep(0.05)  # and stops spinning
    task, ran = _tasks({0: 0.1, 1: 0.1})  # ample time for a woken worker, even under load
    assert par_for(None, task, 0, 2, None) == 0
    assert sorted(ran) == [0, 1]
    assert ran[0] != ran[1], "the worker slept through the job: the caller ran both tasks"


def test_the_caller_sleeps_until_the_last_worker_is_done(par_for):
    # The caller claims task 0 first; the worker joins during it and takes task 1, which runs
    # long past the caller's spin.
    task, ran = _tasks({0: 0.1, 1: 0.3})
    assert par_for(None, task, 0, 2, None) == 0
    assert sorted(ran) == [0, 1] and ran[0] != ran[1]


def test_the_first_failure_is_returned_and_later_tasks_are_skipped(par_for):
    task, ran = _tasks({}, codes={3: -7})
    assert par_for(None, task, 0, 2000, None) == -7
    assert 3 in ran and len(ran) < 2000
