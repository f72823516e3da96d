"""DAgger for the BC head, in simulation: the head drives, the privileged expert labels every state it reaches.

A head trained on expert data alone meets, under its own control, states the expert's data never shows (a slower
walk, a slipping foot) and its small errors compound there. Each round the current head drives in the task's `sim`
domain, the privileged expert, on the true state, says at every step what it would do, and the head alone is
retrained on all labels so far, half of each batch replayed from the simulation dataset so that it keeps the gait
it had. A last stage adds the task's documented sensor noise to the head's inputs (the authors' augmentation), so
that the head also copes with the robot's noisy sensors. On Slippery Slope (μ = 0.19) one round plus that stage
took the BC head alone from 0.80 to 0.87 in `real` (docs/tasks/slippery-slope.md).

Only the policy head changes: encoder, dynamics, reward and value stay bit-identical. Episodes record the actions
the head executed (the history it sees when deployed) and the expert's labels as BC targets (`Episode.expert_action`):
a head that attends to past actions must not learn from a history of labels it never executed. Every stage
resumes: a rerun of the same command continues from the last written episode file and the last checkpoint.

The same loop refines the single-step BC baseline (a `simdist compare` BC checkpoint, `baselines.bc`): it drives,
the expert labels, it is retrained on the labels with the same simulation replay and the same two stages, so that
SimDist's DAgger head can be compared with a baseline given the same simulation-side help.

Files: `config.py` (DaggerConfig, the recipe), `collect.py` (the head drives, the expert labels; one round's
episodes; the head's `sim` evaluation), `run.py` (the rounds, the head's training, the candidate choice, and the
`simdist dagger` command).
"""

from simdist.adaptation.dagger.collect import collect_round, dagger_episode, driving_agent, evaluate_head, import_labels
from simdist.adaptation.dagger.config import DaggerConfig
from simdist.adaptation.dagger.run import dagger

__all__ = [
    "DaggerConfig",
    "collect_round",
    "dagger",
    "dagger_episode",
    "driving_agent",
    "evaluate_head",
    "import_labels",
]
