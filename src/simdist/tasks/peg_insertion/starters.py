"""Policies whose runs Peg Insertion's mid-task starts are taken from (`--set data.mid_task_starter=NAME`).

The privileged expert hovers over the hole until the peg is within 0.5 mm of its axis, below the wrist camera's
noise, so its near-hole states hold the peg almost on the axis, and a head regressing its correction on the
perceived offset learns a gain attenuated by that noise (about half). The head then descends while millimetres off.
The misaligned starter is the expert with an error in where it believes the hole is, redrawn every few seconds: its
runs carry the peg over, hover above, press it onto and search beside points a few millimetres from the mouth until a
draw falls within the chamfer's capture, so episodes started there show the expert correcting offsets that the camera
resolves, and backing off the fixture's top before it descends.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from simdist.tasks.peg_insertion.expert import ExpertTuning, ScriptedExpert

# Per-axis std of the believed hole's error: about the heads' misalignment at the mouth (docs/tasks/peg-insertion.md).
MISALIGNMENT_STD_M = 0.003
# Chance per step of a new error (every 2 s on average at 5 Hz): one error per run leaves a run that stalls beside
# the hole repeating one state, or, within the capture, one that inserts at once.
REDRAW_PROB = 0.1


class MisalignedExpert(ScriptedExpert):
    """The expert, aiming at a hole offset by N(0, `std_m`) per axis, drawn at each reset and with probability
    `redraw_prob` at each step."""

    def __init__(self, std_m: float = MISALIGNMENT_STD_M, redraw_prob: float = REDRAW_PROB):
        super().__init__(ExpertTuning(name="misaligned"))
        self.std_m, self.redraw_prob = std_m, redraw_prob

    def reset(self, rng: np.random.Generator) -> None:
        super().reset(rng)
        self._draw()

    def act(self, privileged: np.ndarray) -> np.ndarray:
        if self._rng.random() < self.redraw_prob:
            self._draw()
        return super().act(privileged)

    def _draw(self) -> None:
        bias = tuple(float(v) for v in self._rng.normal(0.0, self.std_m, 2))
        self.tuning = replace(self.tuning, hole_bias_m=bias)


def misaligned_starter() -> MisalignedExpert:
    return MisalignedExpert()
