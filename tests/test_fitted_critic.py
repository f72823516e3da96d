"""The expert critic's fit is judged where the planner uses it too: among near-goal states."""

import numpy as np
import torch

from simdist.experts.fitted_critic import CriticFitConfig, fit_critic, near_goal_rmse, r_squared


def test_near_goal_error_is_the_rms_error_over_the_top_quartile_of_returns():
    x = torch.linspace(-3, 3, 2001)
    value = -(x**2)  # the goal is x = 0
    tilted = value + 0.3 * x  # slopes the wrong way near the goal, as a poorly fitted critic did
    assert r_squared(tilted, value) > 0.95  # the overall fit looks excellent
    near = value >= value.quantile(0.75)
    assert near_goal_rmse(tilted, value) == torch.sqrt(((tilted - value)[near] ** 2).mean()).item()
    assert near_goal_rmse(value, value) == 0.0


def test_fit_critic_reports_both_fits_on_held_out_episodes():
    rng = np.random.default_rng(0)
    states = rng.uniform(-2, 2, (3000, 2)).astype(np.float32)
    returns = (-(states**2).sum(1)).astype(np.float32)
    episodes = np.repeat(np.arange(60), 50)
    _, quality = fit_critic(states, returns, episodes, CriticFitConfig(hidden=(32, 32), epochs=60, lr=1e-2))
    assert set(quality) == {"r2_heldout", "rmse_heldout_near_goal"}
    assert quality["r2_heldout"] > 0.95
    assert 0 < quality["rmse_heldout_near_goal"] < returns.std()
