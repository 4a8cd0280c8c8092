"""The repository's paths, the same from any test directory."""

from __future__ import annotations

import os

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TESTS)
DATA = os.path.join(TESTS, "data")
SAMPLES = os.path.join(ROOT, "sample_runs")
BENCH = os.path.join(ROOT, "bench")
