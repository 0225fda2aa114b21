"""Lowering passes, one per module, each `run(stmt, ctx) -> stmt`; ordered in webhal.lower."""
