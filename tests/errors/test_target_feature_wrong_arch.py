"""A target feature that exists but does not fit the target's architecture."""

import webhal as hl

from ._util import expect_error


def test_x86_feature_on_wasm():
    with expect_error(hl.TargetError, "feature 'avx2'", "wasm-32-wasmrt-avx2",
                      "for x86 targets, not wasm"):
        hl.Target("wasm-32-wasmrt-avx2")


def test_wasm_feature_added_to_arm():
    target = hl.Target("arm-64-linux")
    with expect_error(hl.TargetError, "feature 'wasm_simd128'", "for wasm targets, not arm"):
        target.with_feature("wasm_simd128")
