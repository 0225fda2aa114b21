"""parallel, vectorize or gpu_blocks of an RVar, whose iterations run in order."""

import webhal as hl

from ._util import expect_error

x = hl.Var("x")


def make_scan() -> tuple[hl.Func, hl.RDom]:
    scan = hl.Func("scan")
    scan[x] = 0
    r = hl.RDom([(1, 15)], "r")
    scan[r] = scan[r - 1] + r
    return scan, r


def test_parallel():
    scan, r = make_scan()
    with expect_error(hl.ScheduleError, "loop r$x of scan.update(0) parallel", "RVar"):
        scan.update(0).parallel(r.x)


def test_vectorize_with_a_factor():
    scan, r = make_scan()
    with expect_error(hl.ScheduleError, "loop r$x of scan.update(0) vectorized", "RVar"):
        scan.update(0).vectorize(r.x, 4)
    assert scan.update(0).loops() == ["r$x"]  # not split before the error


def test_gpu_blocks():
    scan, r = make_scan()
    with expect_error(hl.ScheduleError, "loop r$x of scan.update(0) gpu_block", "RVar"):
        scan.update(0).gpu_blocks(r.x)


def test_hl_num_threads_not_a_number(monkeypatch):
    monkeypatch.setenv("HL_NUM_THREADS", "four")
    rows = hl.Func("rows")
    y = hl.Var("y")
    rows[x, y] = x + y
    rows.parallel(y)
    with expect_error(hl.HalideError, "HL_NUM_THREADS='four'", "positive whole number"):
        rows.realize([8, 8])
