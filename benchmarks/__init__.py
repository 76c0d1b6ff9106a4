"""Benchmarks of the trace warehouse: speed and memory per stage, baselines, calibration (DESIGN §9).

``python -m benchmarks.harness --scale 1.0`` runs everything and writes ``benchmarks/results/``; each stage
runs as its own process (``python -m benchmarks.stage <name>``) so the peak memory of its whole process
tree can be measured. See ``benchmarks/README.md``.
"""
