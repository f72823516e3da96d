"""Episode seeding of evaluations and adaptation rounds: independent across seeds, unchanged by a resume."""

import numpy as np

from simdist.rollout import episode_seed, rollout
from simdist.tasks import get_task


class ConstantAgent:
    def reset(self) -> None:
        pass

    def act(self, obs):
        return np.array([0.5], np.float32)


def test_evaluation_seeds_share_no_episode():
    streams = [0, 1, 2, (0, 0), (0, 1), (1, 0)]
    seeds = [{episode_seed(s, i) for i in range(200)} for s in streams]
    assert all(len(s) == 200 for s in seeds)
    for a in range(len(seeds)):
        for b in range(a + 1, len(seeds)):
            assert not seeds[a] & seeds[b], (streams[a], streams[b])  # `seed + index` shared 199 of 200


def test_a_resumed_rollout_seeds_its_episodes_as_an_uninterrupted_one():
    task = get_task("pendulum")  # `sim` randomises the motor at each reset, so the seed shows in the trajectory
    ics = task.initial_conditions("default", 4, seed=0)
    full = rollout(task, task.make_env("sim", seed=0), ConstantAgent(), ics, seed=(3, 1))
    resumed = rollout(task, task.make_env("sim", seed=0), ConstantAgent(), ics[2:], seed=(3, 1), first_index=2)
    other = rollout(task, task.make_env("sim", seed=0), ConstantAgent(), ics[2:], seed=(4, 1), first_index=2)
    for k in range(2):
        np.testing.assert_array_equal(resumed.episodes[k].obs["proprio"], full.episodes[2 + k].obs["proprio"])
    assert not np.array_equal(other.episodes[0].obs["proprio"], full.episodes[2].obs["proprio"])
