"""`simdist diagnose`: which part of SimDist's planner loses, found by swapping in the truth one part at a time.

On the same initial conditions and episode seeds it runs four agents:
  head               the BC head alone;
  mppi               the task's planner over the learned model;
  mppi_true_dynamics the same planner with the simulator as dynamics, scored by the learned reward and value
                     heads on the encoded true observations;
  mppi_true_model    the same planner scored by the true return (dense reward + expert critic): only the search
                     can lose;
  mppi_true_model_sim_critic
                     in `real` only: the true return with the critic read at `sim` physics (the gap's entries of
                     the privileged state at their `sim` means), the best a frozen value head trained in `sim` could
                     know. Where only the `real` critic wins, the gap asks of the value what the method does not.
Every simulator agent keeps the learned planner's objective except the part swapped (ensemble pessimism around
the BC chunk, the prior). The candidates' predicted end latents are measured against the encoded `--data` states
(eval.coverage): how far the search leaves the data, and how that tracks the value head's error.
While `mppi` runs, a sample of its plans is probed open loop: the first iteration's candidate set is rolled out in
the simulator and the predicted return R̂ = Σγ^k r̂ + γ^T v̂ is compared with the true one (Spearman ρ). Each of the
three parts (dynamics: heads read on predicted vs encoded true latents; reward; value) can be swapped for the
truth, and ρ is measured for all 8 combinations; each part's Shapley share of the gap 1 − ρ (its mean gain over
every order of swapping) says what the ranking loses to, without depending on which part is swapped first.
The closed-loop comparison names the loser when its difference is beyond chance; otherwise the largest share.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass

import matplotlib
import numpy as np
import torch

from simdist.data.episodes import DatasetInfo, Episode
from simdist.data.windows import WindowDataset
from simdist.eval.coverage import LatentCoverage, spearman
from simdist.model.metrics import latent_prediction_error
from simdist.model.world_model import ACTION, COMMAND, VALUE, PlanningContext, WorldModel
from simdist.planning.agent import MPPIAgent, PolicyAgent
from simdist.planning.mppi import PlanResult
from simdist.planning.settings import MPPIConfig
from simdist.planning.simulator import (
    SimPhysicsCritic,
    SimulatorMPPIAgent,
    encoded_rollouts,
    learned_return_parts,
    simulator_rollouts,
)
from simdist.rollout import rollout
from simdist.tasks.base import check_domain, default_grid

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the headless backend)

AGENTS = ("head", "mppi", "mppi_true_dynamics", "mppi_true_model", "mppi_true_model_sim_critic")
REAL_ONLY = ("mppi_true_model_sim_critic",)  # in `sim` the critic already reads `sim` physics
PARTS = ("dynamics", "reward", "value", "search")
SMALL_SHARE = 0.15  # a part worth less than this much of Spearman ρ barely reorders the candidates


@dataclass(frozen=True)
class DiagnoseConfig:
    domain: str = "sim"
    trials: int = 40
    seed: int = 1  # initial conditions and episode seeds, shared by every agent
    grid: str | None = None  # None: the task's default grid
    probe_episodes: int = 5  # the first episodes of `mppi` whose plans are probed open loop
    probes_per_episode: int = 3  # evenly spaced control steps
    data_windows: int = 1024  # windows of --data for the value head's error on data states

    def __post_init__(self) -> None:
        check_domain(self.domain)
        for name in ("trials", "probe_episodes", "probes_per_episode", "data_windows"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")


@torch.no_grad()
def probe_plan(
    model: WorldModel,
    mppi: MPPIConfig,
    ctx: PlanningContext,
    env,
    critic,
    plan: PlanResult,
    generator: torch.Generator,
    coverage: LatentCoverage | None = None,
) -> dict[str, float]:
    """Open-loop check of one plan: MPPI's first-iteration candidates (around the BC chunk), the plan and the
    chunk, ranked by the learned model and by the simulator."""
    head = model.plan_policy_n(ctx)[0]
    T, A = head.shape
    draw = lambda n: torch.randn((n, T, A), generator=generator, device=head.device)
    cands = torch.cat(
        (
            head + mppi.init_std * draw(mppi.samples),
            head + mppi.policy_noise_std * draw(mppi.policy_samples),
            plan.mean[None],
            head[None],
        )
    )
    norm = model.normalizer
    low, high = (
        (
            norm.normalize(ACTION, torch.tensor(b, device=head.device))
            for b in (model.spec.action_low, model.spec.action_high)
        )
        if model.spec.action_low
        else (None, None)
    )
    if low is not None:
        cands = torch.maximum(torch.minimum(cands, high), low)
    g, gT = mppi.discount, mppi.discount**T
    zhat = model.latents_n(ctx.dynamics_kv, cands)
    pred_r, pred_v = model.return_parts_n(ctx, zhat, cands, g)
    rollouts = simulator_rollouts(env, critic, norm.denormalize(ACTION, cands).cpu().numpy())
    true_r = rollouts.rewards @ (g ** np.arange(T))
    true_v, true_R = rollouts.terminal_value, rollouts.true_returns(g)
    lr, lv = (t.cpu().numpy() for t in learned_return_parts(model, ctx, rollouts, cands, g))
    pred_r, pred_v = pred_r.cpu().numpy(), pred_v.cpu().numpy()
    rho = {}
    for swapped in itertools.product((False, True), repeat=3):  # (dynamics, reward, value) replaced by the truth
        dyn, rew, val = swapped
        r = true_r if rew else (lr if dyn else pred_r)
        v = true_v if val else (lv if dyn else pred_v)
        rho[swapped] = spearman(r + gT * v, true_R)
    shares = shapley(rho)
    return {
        **(coverage.probe(zhat[:, -1], np.abs(pred_v - true_v)) if coverage else {}),
        "rho_learned_model": rho[(False, False, False)],
        "rho_true_dynamics": rho[(True, False, False)],
        "rho_value": spearman(lv, true_v),
        "rho_reward": spearman(lr, true_r),
        **{f"share_{part}": shares[i] for i, part in enumerate(("dynamics", "reward", "value"))},
        "plan_minus_head_true_return": float(true_R[-2] - true_R[-1]),
        "best_candidate_minus_head_true_return": float(true_R.max() - true_R[-1]),
        "value_error_predicted_end": float(np.abs(pred_v - true_v).mean()),
        "value_error_true_end": float(np.abs(lv - true_v).mean()),
        "reward_error_true_states": float(np.abs(lr - true_r).mean()),
        "effect_error": effect_error(zhat, encoded_rollouts(model, rollouts, zhat.device)),
    }


def effect_error(predicted: torch.Tensor, true: torch.Tensor) -> float:
    """How wrong the dynamics is about what leaving the head does: the error of each candidate's predicted end-latent
    shift from the head's (the last row) against the true shift, relative to the true shift (0: exact; 1: as far off
    as ignoring the actions): the counterfactual part of the dynamics' error, which the held-out error on the robot's
    own data does not see."""
    pred_shift, true_shift = predicted[:-1, -1] - predicted[-1, -1], true[:-1, -1] - true[-1, -1]
    return float((pred_shift - true_shift).norm(dim=-1).mean() / true_shift.norm(dim=-1).mean().clamp(min=1e-8))


def shapley(value: dict[tuple[bool, ...], float]) -> list[float]:
    """Each player's Shapley value of a game given on every coalition (a tuple of booleans): its mean marginal
    gain over all orders in which the players join. NaN entries count as 0 correlation."""
    n = len(next(iter(value)))
    f = {k: (0.0 if math.isnan(v) else v) for k, v in value.items()}
    out = [0.0] * n
    orders = list(itertools.permutations(range(n)))
    for order in orders:
        members = [False] * n
        for i in order:
            before = f[tuple(members)]
            members[i] = True
            out[i] += (f[tuple(members)] - before) / len(orders)
    return out


class ProbingMPPIAgent(MPPIAgent):
    """The task's MPPIAgent; records how far each executed action is from the BC head's and probes some plans.
    Probes draw from their own generator, so the episodes are those of an unprobed MPPIAgent."""

    def __init__(
        self,
        model: WorldModel,
        mppi: MPPIConfig,
        env,
        critic,
        probe_steps: set[int],
        probe_episodes: int,
        coverage: LatentCoverage | None = None,
    ):
        super().__init__(model, mppi)
        self.env, self.critic, self.mppi, self.coverage = env, critic, mppi, coverage
        self.probe_steps, self.probe_episodes = probe_steps, probe_episodes
        self.generator = torch.Generator(device=self.device).manual_seed(mppi.seed + 1)
        self.episode, self.step = -1, 0
        self.distances: list[float] = []
        self.probes: list[dict[str, float]] = []
        self.on_plan = self._after_plan

    def reset(self) -> None:
        super().reset()
        self.episode, self.step = self.episode + 1, 0

    def _after_plan(self, ctx: PlanningContext, plan: PlanResult) -> None:
        head = self.model.plan_policy_n(ctx)[0]
        self.distances.append(float((plan.mean[0] - head[0]).pow(2).mean().sqrt()))
        if self.episode < self.probe_episodes and self.step in self.probe_steps:
            self.probes.append(
                probe_plan(self.model, self.mppi, ctx, self.env, self.critic, plan, self.generator, self.coverage)
            )
        self.step += 1


@torch.no_grad()
def value_error_on_data(model: WorldModel, episodes: list[Episode], windows: int) -> float:
    """Mean |V(E(o_{t+1..t+T}))_T − V^e(s_{t+T})| over data windows: the value head's error where it was trained."""
    spec = model.spec
    info = DatasetInfo(
        task="",
        domain="",
        control_period_s=0.0,
        obs_shapes=spec.obs_shapes,
        action_dim=spec.action_dim,
        command_dim=spec.command_dim,
    )
    data = WindowDataset(info, episodes, model.cfg.history, model.cfg.horizon, device=next(model.parameters()).device)
    batch = data.batch(np.linspace(0, len(data) - 1, min(windows, len(data))).astype(int))
    z = model.encode(batch["future_obs"])  # (B, T, d)
    cmd = model.normalizer.normalize(COMMAND, batch["commands"]) if spec.command_dim else None
    v = model.normalizer.denormalize(VALUE, model.values_n(z, cmd, last_only=True))[:, -1]
    return float((v - batch["values"][:, -1]).abs().mean())


def two_proportion_z(a: float, b: float, n: int) -> float:
    """z statistic of success rates a − b over n trials each (0 when both are 0 or 1)."""
    p = (a + b) / 2
    se = math.sqrt(2 * p * (1 - p) / n) if 0 < p < 1 else 0.0
    return 0.0 if se == 0 else (a - b) / se


def verdict(success: dict[str, float], trials: int, probe: dict[str, float]) -> tuple[str, str]:
    """(losing part, one sentence). Closed loop first: each swap of a part for the truth that lifts success
    beyond chance (|z| > 1.96) names that part; otherwise the largest open-loop Shapley share."""
    beats = lambda a, b: two_proportion_z(success[a], success[b], trials) > 1.96
    s = {k: f"{v:.2f}" for k, v in success.items()}
    if not beats("head", "mppi"):
        lead = f"MPPI ({s['mppi']}) is not below the BC head ({s['head']}) beyond chance"
    else:
        lead = f"MPPI ({s['mppi']}) loses to the BC head ({s['head']})"
        if beats("mppi_true_dynamics", "mppi"):
            return "dynamics", (
                f"{lead}; with the simulator as its dynamics it reaches {s['mppi_true_dynamics']}: "
                "the learned dynamics loses."
            )
        if beats("mppi_true_model", "mppi_true_dynamics"):
            part = "value" if probe["share_value"] >= probe["share_reward"] else "reward"
            return part, (
                f"{lead}; the simulator as dynamics does not help ({s['mppi_true_dynamics']}) but the true "
                f"return does ({s['mppi_true_model']}): the learned {part} loses (it accounts for "
                f"{probe['share_' + part]:.2f} of the candidate ranking's gap to ρ = 1)."
            )
        if not beats("head", "mppi_true_model"):
            return "search", (
                f"{lead}, and only the true return brings the planner to the head's level "
                f"({s['mppi_true_model']}): the dynamics and the return each lose a little."
            )
        return "search", (
            f"{lead}, and even with the true dynamics and return it reaches {s['mppi_true_model']}: "
            "the search (sampler, horizon, temperature) loses."
        )
    shares = {part: probe[f"share_{part}"] for part in ("dynamics", "reward", "value")}
    part = max(shares, key=shares.get)
    if shares[part] < SMALL_SHARE:
        return "search", (
            f"{lead}, and the learned model ranks candidates nearly as the simulator does (ρ = "
            f"{probe['rho_learned_model']:.2f}; no part costs {SMALL_SHARE} of ρ): nothing in the model "
            "loses."
        )
    return part, (
        f"{lead} in closed loop; open loop the learned {part} costs the candidate ranking most "
        f"(ρ(predicted, true return) = {probe['rho_learned_model']:.2f}; the {part} accounts for "
        f"{shares[part]:.2f} of the gap to 1)."
    )


def summarise_probes(probes: list[dict[str, float]]) -> dict[str, float]:
    mean = lambda k: float(np.nanmean([p[k] for p in probes])) if probes else float("nan")
    out = {k: mean(k) for k in (probes[0] if probes else ())}
    out["count"] = len(probes)
    return out


def diagnose(
    task,
    model: WorldModel,
    mppi: MPPIConfig,
    cfg: DiagnoseConfig,
    physics=None,
    data: list[Episode] | None = None,
    progress: bool = False,
    on_agent: Callable[[str, dict], None] | None = None,
) -> dict:
    """Run the agents on the same trials, probe `mppi`'s plans, and name the part that loses. `on_agent(name,
    result)` is called as each agent finishes, so an interrupted diagnosis keeps what it measured."""
    grid = cfg.grid or default_grid(task)
    ics = task.initial_conditions(grid, cfg.trials, seed=cfg.seed)
    critic = task.critic()
    steps = task.spec.episode_steps
    probe_steps = {int(k) for k in np.linspace(0, steps - 1, cfg.probes_per_episode + 2)[1:-1]}
    coverage = LatentCoverage(model, data) if data else None
    results, episodes, probing = {}, {}, None
    for name in (a for a in AGENTS if cfg.domain == "real" or a not in REAL_ONLY):
        env = task.make_env(cfg.domain, physics, seed=cfg.seed)
        if name == "head":
            agent = PolicyAgent(model)
        elif name == "mppi":
            agent = probing = ProbingMPPIAgent(model, mppi, env, critic, probe_steps, cfg.probe_episodes, coverage)
        elif name == "mppi_true_model_sim_critic":
            agent = SimulatorMPPIAgent(model, mppi, env, SimPhysicsCritic(critic, task, physics, ics[0]), "true")
        else:
            agent = SimulatorMPPIAgent(model, mppi, env, critic, "learned" if name == "mppi_true_dynamics" else "true")
        res = rollout(task, env, agent, ics, seed=cfg.seed, progress=progress, source=name)
        summary = res.summary(task.spec.control_period_s)
        results[name] = {k: summary[k] for k in ("success_rate", "success_ci95", "successes", "trials")}
        if "mean_action_distance_to_head" in summary:
            results[name]["mean_action_distance_to_head"] = summary["mean_action_distance_to_head"]
        episodes[name] = res.episodes
        if on_agent is not None:
            on_agent(name, results[name])
    probe = summarise_probes(probing.probes)
    probe["mean_action_distance_to_head"] = float(np.mean(probing.distances))
    if data:
        probe["value_error_data_states"] = value_error_on_data(model, data, cfg.data_windows)
    success = {k: v["success_rate"] for k, v in results.items()}
    part, sentence = verdict(success, cfg.trials, probe)
    return {
        "task": task.spec.name,
        "domain": cfg.domain,
        "grid": grid,
        "config": asdict(cfg),
        "mppi": asdict(mppi),
        "agents": results,
        "probes": probe,
        "latent_error_by_horizon": latent_prediction_error(model, episodes["mppi"]).tolist(),
        "loser": part,
        "verdict": sentence + critic_note(success, cfg.trials),
    }


def critic_note(success: dict[str, float], trials: int) -> str:
    """In `real`: whether the true return wins only with the `real` critic, which no `sim`-trained value can be."""
    if "mppi_true_model_sim_critic" not in success:
        return ""
    real, sim = success["mppi_true_model"], success["mppi_true_model_sim_critic"]
    if two_proportion_z(real, sim, trials) > 1.96:
        return (
            f" With the critic at `sim` physics the true return reaches only {sim:.2f} (against {real:.2f} with "
            "the `real` one): this gap asks the value head for what simulation could not teach it."
        )
    return f" With the critic at `sim` physics the true return reaches {sim:.2f} (the `real` one {real:.2f})."


__all__ = ["AGENTS", "DiagnoseConfig", "PARTS", "diagnose", "probe_plan", "spearman", "verdict"]


def plot_diagnosis(result: dict, path) -> None:
    """Success of the four agents with 95 % intervals, the ranking's Spearman ρ with each swap, and the latent
    error by horizon step."""
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    agents = result["agents"]
    names = [a for a in AGENTS if a in agents]
    rates = [agents[a]["success_rate"] for a in names]
    lo, hi = zip(*(agents[a]["success_ci95"] for a in names))
    yerr = np.maximum(0.0, [np.subtract(rates, lo), np.subtract(hi, rates)])  # an interval may round inside its rate
    axes[0].bar(range(len(names)), rates, yerr=yerr, capsize=3)
    axes[0].set_xticks(
        range(len(names)), [a.replace("mppi_", "mppi\n").replace("_sim", "\nsim") for a in names], fontsize=7
    )
    axes[0].set(ylim=(0, 1.05), ylabel="success rate", title=f"closed loop ({result['domain']})")
    parts = ("dynamics", "reward", "value")
    axes[1].bar(range(len(parts)), [result["probes"].get(f"share_{p}", np.nan) for p in parts])
    axes[1].set_xticks(range(len(parts)), parts)
    axes[1].set(
        ylabel="Shapley share of 1 − ρ",
        title=f"candidate ranking (ρ = {result['probes'].get('rho_learned_model', np.nan):.2f})",
    )
    err = result["latent_error_by_horizon"]
    axes[2].plot(range(1, len(err) + 1), err, marker="o")
    axes[2].set(xlabel="horizon step k", ylabel="‖ẑ − E(o)‖² (mean)", title="latent prediction error")
    fig.suptitle(result["verdict"], fontsize=8, wrap=True)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
