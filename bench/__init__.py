"""Benchmarks (``make bench``); results and commands are recorded in docs/benchmarks.md."""
