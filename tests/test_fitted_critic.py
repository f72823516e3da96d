"""The expert critic's fit is judged where the planner uses it: among near-goal states."""

import numpy as np
import torch

from simdist.experts.fitted_critic import (NEAR_GOAL_R2_WARN, CriticFitConfig, fit_critic, near_goal_r_squared,
                                          r_squared)


def test_near_goal_r_squared_catches_a_tilted_critic_that_overall_r_squared_passes():
    x = torch.linspace(-3, 3, 2001)
    value = -x**2  # the goal is x = 0
    tilted = value + 0.3 * x  # slopes the wrong way near the goal, as a poorly fitted critic does
    assert r_squared(tilted, value) > 0.95
    assert near_goal_r_squared(tilted, value) < NEAR_GOAL_R2_WARN
    assert near_goal_r_squared(value + 0.01 * torch.randn(len(x), generator=torch.Generator().manual_seed(0)),
                               value) > 0.95


def test_fit_critic_reports_both_fits_on_held_out_episodes():
    rng = np.random.default_rng(0)
    states = rng.uniform(-2, 2, (3000, 2)).astype(np.float32)
    returns = (-(states**2).sum(1)).astype(np.float32)
    episodes = np.repeat(np.arange(60), 50)
    _, quality = fit_critic(states, returns, episodes, CriticFitConfig(hidden=(32, 32), epochs=60, lr=1e-2))
    assert set(quality) == {"r2_heldout", "r2_heldout_near_goal"}
    assert quality["r2_heldout"] > 0.95
    assert quality["r2_heldout_near_goal"] < quality["r2_heldout"]
