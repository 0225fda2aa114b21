"""One test file per user error: each makes one mistake and checks the error webhal raises."""
