"""One pipeline per file, realized on every target and compared with the reference evaluator."""
