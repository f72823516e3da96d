"""Experiments over the library: the whole pipeline, Table I and Fig. 10 ablations, baseline comparisons and
benchmarks."""
