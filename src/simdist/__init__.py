"""simdist: Simulation Distillation (SimDist) in PyTorch and MuJoCo."""

__version__ = "0.1.0"
