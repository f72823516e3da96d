"""Peg Insertion: a diffusion head on a frozen world model, trained on a teacher's either/or choices.

Session 41's model pretrained on the perceiving teacher (benchmarks/peg_perceiving_teacher.sh) keeps the perceived
peg-to-hole offset in its latent, but its regression BC head averages the teacher's either/or moves at the hole's
mouth and hovers. This trains a head that can sample those choices instead: `ChunkDDPM` (the Diffusion Policy
baseline's DDPM) over `--chunk`-step action chunks, conditioned on the frozen model's z_t = E(o_t) and the
normalised history of proprioception and actions that the BC head also sees, on the dataset's windows whose whole
chunk is the uncorrupted teacher's (the BC loss's expert mask). The model is untouched. At run time the head samples
a chunk, executes its first `--action-steps` actions and samples again (receding horizon), and is evaluated alone on
`--trials` Narrow trials per domain (seed 1: the protocol of benchmarks/peg_perceiving_teacher.sh).

Options (docs/results/peg-insertion.md, session 42): `--tail-windows` also trains on windows in each episode's last
steps (an episode ends when the peg seats, so otherwise no window starts at the seating push: 0.05 -> 0.33 in `sim`);
`--setpoint-lead` adds the controller set-point's lead over the TCP, replayed from the commands (`next_setpoint`);
`--raw-obs` adds the normalised observation; a dataset with DAgger episodes (`simdist dagger`'s `dagger_data`, or a
folder that links its episode files beside the recipe's) trains on their labels, not on the actions executed;
`evaluate --select N` executes the best of N sampled chunks by the world model's return (Σ γ^k r̂ + γ^T v̂).

    python benchmarks/peg_diffusion_head.py train --checkpoint runs/peg_teacher --data runs/peg_teacher_data \
        --out runs/peg_diffusion_head [--steps 30000]
    python benchmarks/peg_diffusion_head.py evaluate --out runs/peg_diffusion_head --domain sim \
        --records benchmarks/results/peg_diffusion_head.jsonl
    python benchmarks/peg_diffusion_head.py stages --out runs/peg_diffusion_head --domain real \
        --records benchmarks/results/peg_diffusion_head_stages.jsonl   # benchmarks/manipulation_stages.py's rows
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections import deque
from pathlib import Path

import numpy as np
import torch
from manipulation_stages import stage_means, staged_rollouts
from records import emit
from safetensors.torch import load_file, save_file

from simdist.baselines.diffusion_policy import ChunkDDPM
from simdist.data.windows import WindowDataset
from simdist.eval.rollout import evaluate_grids
from simdist.model.world_model import ACTION, PROPRIO, WorldModel
from simdist.planning.agent import PolicyAgent
from simdist.planning.settings import mppi_preset
from simdist.progress import progress_bar
from simdist.tasks import get_task
from simdist.tasks.peg_insertion.env import CONTROL
from simdist.tasks.peg_insertion.layout import PROPRIO as PROPRIO_LAYOUT
from simdist.tasks.ur5e.env import next_setpoint
from simdist.training.checkpoint import load_model

log = logging.getLogger("peg_diffusion_head")
REPO = Path(__file__).resolve().parents[1]  # config.json names the checkpoint and data relative to it
VAL_FRACTION = 0.05
TCP = PROPRIO_LAYOUT.slice("tcp_pos")


def features(model: WorldModel, obs: dict[str, torch.Tensor], hist_proprio: torch.Tensor,
             hist_action: torch.Tensor, raw_obs: bool = False, lead: torch.Tensor | None = None) -> torch.Tensor:
    """[z_t, normalised proprio history, normalised action history]: what the BC head attends to, flattened;
    with `raw_obs`, the normalised current observation too (past ones are in the history already); with `lead`,
    the controller set-point's lead over the TCP (`setpoint_leads`)."""
    with torch.no_grad():
        obs_n = model.normalize_obs(obs)
        parts = [model.encode_n(obs_n)]
        if raw_obs:
            parts += [obs_n[name].flatten(1) for name in model.spec.obs_shapes]
        parts += [model.normalizer.normalize(PROPRIO, hist_proprio).flatten(1),
                  model.normalizer.normalize(ACTION, hist_action).flatten(1)]
        if lead is not None:
            parts.append(lead)
    return torch.cat(parts, dim=-1)


def feature_dim(model: WorldModel, raw_obs: bool = False, lead: bool = False) -> int:
    H, spec = model.cfg.history, model.spec
    obs_dim = sum(int(np.prod(shape)) for shape in spec.obs_shapes.values()) if raw_obs else 0
    return model.cfg.latent_dim + obs_dim + H * (spec.obs_shapes[PROPRIO][0] + spec.action_dim) + 3 * lead


def scaled_lead(setpoint: np.ndarray, tcp: np.ndarray) -> np.ndarray:
    return (setpoint - tcp) / CONTROL.max_setpoint_lead_m


def setpoint_leads(data: WindowDataset) -> torch.Tensor:
    """Per dataset step, the set-point's lead over the TCP in units of the anti-windup limit, replayed from each
    episode's reset TCP, observed TCPs and actions (`next_setpoint`): the controller's own state, which the
    observation omits and the teacher's push depends on (it sets the set-point a fixed depth below the TCP)."""
    tcp = data.obs[PROPRIO][:, TCP].numpy().astype(np.float64)
    action = np.clip(data.action.numpy().astype(np.float64), -1.0, 1.0)
    t_in_episode = np.arange(len(tcp)) - data.episode_start.numpy()
    order = np.argsort(t_in_episode, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(t_in_episode))])
    setpoint = tcp.copy()  # a reset puts the set-point on the TCP
    for k in range(1, len(bounds) - 1):  # every episode's k-th step from its (k-1)-th
        rows = order[bounds[k]:bounds[k + 1]]
        setpoint[rows] = next_setpoint(setpoint[rows - 1], tcp[rows - 1], action[rows - 1], CONTROL)
    return torch.as_tensor(scaled_lead(setpoint, tcp), dtype=torch.float32)


def teacher_windows(data: WindowDataset, chunk: int) -> np.ndarray:
    """Windows whose `chunk` actions (those before the episode's end, with tail windows) are all the uncorrupted
    teacher's."""
    flags = np.concatenate([[0.0], np.cumsum(data.expert.cpu().numpy())])
    t = data.window_t
    stop = np.minimum(t + chunk, data.episode_end.cpu().numpy()[t])
    return np.flatnonzero(flags[stop] - flags[t] == stop - t)


def train(args: argparse.Namespace) -> None:
    torch.manual_seed(args.seed)
    model = load_model(args.checkpoint).eval()
    # tail windows: an episode ends at success, so without them no window starts in the last `chunk` steps, the
    # push that seats the peg (the chunk repeats the last action past the end, as the baseline's ChunkDataset)
    data = WindowDataset.from_dir(args.data, model.cfg.history, args.chunk, tail_windows=args.tail_windows)
    train_ids, val_ids = data.split(VAL_FRACTION, seed=args.seed)
    usable = teacher_windows(data, args.chunk)
    train_ids, val_ids = train_ids[np.isin(train_ids, usable)], val_ids[np.isin(val_ids, usable)]
    log.info("%d teacher windows for training, %d for validation (of %d)", len(train_ids), len(val_ids), len(data))
    leads = setpoint_leads(data) if args.setpoint_lead else None
    ddpm = ChunkDDPM(feature_dim(model, args.raw_obs, args.setpoint_lead), args.chunk, model.spec,
                     tuple(args.hidden), args.diffusion_steps)
    optimizer = torch.optim.AdamW(ddpm.parameters(), lr=args.lr)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, args.steps)
    rng = np.random.default_rng(args.seed)

    def loss_of(ids: np.ndarray) -> torch.Tensor:
        b = data.batch(ids)
        lead = None if leads is None else leads[data.window_t[ids]]
        cond = features(model, b["obs"], b["hist_proprio"], b["hist_action"], args.raw_obs, lead)
        return ddpm.chunk_loss(cond, b.get("bc_actions", b["actions"]))  # DAgger episodes: the expert's labels

    start, history = time.perf_counter(), []
    for step in progress_bar(range(1, args.steps + 1), desc="diffusion head"):
        loss = loss_of(rng.choice(train_ids, args.batch_size))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        schedule.step()
        if step % args.log_every == 0 or step == args.steps:
            with torch.no_grad(), torch.random.fork_rng():  # the training draws continue undisturbed
                torch.manual_seed(0)  # the same diffusion steps and noise for every validation
                val = float(loss_of(val_ids[:4096]))
            history.append({"step": step, "train_loss": loss.item(), "val_loss": val})
            log.info("step %d: train %.4f, validation %.4f", step, loss.item(), val)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    save_file({k: v.contiguous() for k, v in ddpm.state_dict().items()}, str(out / "ddpm.safetensors"))
    repo_path = lambda p: str(Path(p).resolve().relative_to(REPO))  # noqa: E731
    config = {"checkpoint": repo_path(args.checkpoint), "data": repo_path(args.data), "chunk": args.chunk,
              "action_steps": args.action_steps, "diffusion_steps": args.diffusion_steps, "hidden": args.hidden,
              "raw_obs": args.raw_obs, "setpoint_lead": args.setpoint_lead, "tail_windows": args.tail_windows,
              "steps": args.steps, "batch_size": args.batch_size, "lr": args.lr, "seed": args.seed,
              "train_windows": len(train_ids), "train_minutes": (time.perf_counter() - start) / 60,
              "losses": history}
    (out / "config.json").write_text(json.dumps(config, indent=1))


class DiffusionHeadAgent(PolicyAgent):
    """Samples a chunk from the head, executes its first `action_steps` actions (clipped, recorded in the
    history), then samples again. `bc_chunk` / `bc_action` give a fresh sample, as a BC head's proposal. With
    `setpoint_lead` it tracks the controller's set-point from its executed commands (`next_setpoint`)."""

    def __init__(self, model: WorldModel, ddpm: ChunkDDPM, action_steps: int, seed: int, raw_obs: bool = False,
                 setpoint_lead: bool = False):
        super().__init__(model)
        self.ddpm, self.action_steps, self.raw_obs = ddpm.eval(), action_steps, raw_obs
        self.setpoint_lead = setpoint_lead
        self.generator = torch.Generator().manual_seed(seed)
        self.queue: deque = deque()
        self.setpoint: np.ndarray | None = None

    def reset(self) -> None:
        super().reset()
        self.queue.clear()
        self.setpoint = None

    def condition(self, obs: dict[str, np.ndarray]):
        """(model inputs, head features) for the current step."""
        obs_t, hist_p, hist_a, command = self.model_inputs(obs)
        lead = None
        if self.setpoint_lead:
            tcp = np.asarray(obs[PROPRIO][TCP], np.float64)
            self.setpoint = tcp.copy() if self.setpoint is None else self.setpoint
            lead = torch.as_tensor(scaled_lead(self.setpoint, tcp), dtype=torch.float32).unsqueeze(0)
        return (obs_t, hist_p, hist_a, command), features(self.model, obs_t, hist_p, hist_a, self.raw_obs, lead)

    def bc_chunk(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        return self.ddpm.sample_chunk(self.condition(obs)[1], self.generator)[0].numpy()

    def execute(self, obs: dict[str, np.ndarray], action: np.ndarray) -> np.ndarray:
        action = super().execute(obs, action)
        if self.setpoint_lead:
            tcp = np.asarray(obs[PROPRIO][TCP], np.float64)
            self.setpoint = next_setpoint(tcp if self.setpoint is None else self.setpoint, tcp, action, CONTROL)
        return action

    def act(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        if not self.queue:
            self.queue.extend(self.bc_chunk(obs)[:self.action_steps])
        return self.execute(obs, self.queue.popleft())


class SelectingAgent(DiffusionHeadAgent):
    """Samples `samples` chunks from the head, scores each with the world model as MPPI does (Σ γ^k r̂ + γ^T v̂)
    and executes the best one's first `action_steps` actions: the model chooses among the head's modes."""

    def __init__(self, model: WorldModel, ddpm: ChunkDDPM, action_steps: int, seed: int, raw_obs: bool,
                 setpoint_lead: bool, samples: int):
        super().__init__(model, ddpm, action_steps, seed, raw_obs, setpoint_lead)
        if ddpm.chunk != model.cfg.horizon:
            raise SystemExit(f"--select scores chunks over the model's horizon T={model.cfg.horizon}; this head's "
                             f"chunk is {ddpm.chunk} (train one with --chunk {model.cfg.horizon})")
        self.samples, self.discount = samples, mppi_preset("paper-manipulation").discount

    def bc_chunk(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        (obs_t, hist_p, hist_a, command), cond = self.condition(obs)
        cond = cond.expand(self.samples, -1)
        chunks = self.ddpm.sample_chunk(cond, self.generator)
        ctx = self.model.planning_context(obs_t, hist_p, hist_a, command)
        returns = self.model.plan_returns_n(ctx, self.model.normalizer.normalize(ACTION, chunks), self.discount)
        return chunks[int(torch.argmax(returns))].numpy()


def head_agent(config: dict, model: WorldModel, ddpm: ChunkDDPM, seed: int, action_steps: int = 0,
               select: int = 0) -> DiffusionHeadAgent:
    """The head alone (`select` 0) or choosing among `select` samples; `action_steps` 0: the trained value."""
    steps, raw_obs, lead = action_steps or config["action_steps"], config.get("raw_obs", False), \
        config.get("setpoint_lead", False)
    if select:
        return SelectingAgent(model, ddpm, steps, seed, raw_obs, lead, select)
    return DiffusionHeadAgent(model, ddpm, steps, seed, raw_obs, lead)


def load_head(out: Path) -> tuple[dict, WorldModel, ChunkDDPM]:
    config = json.loads((out / "config.json").read_text())
    model = load_model(REPO / config["checkpoint"]).eval()
    ddpm = ChunkDDPM(feature_dim(model, config.get("raw_obs", False), config.get("setpoint_lead", False)),
                     config["chunk"], model.spec,
                     tuple(config["hidden"]),
                     config["diffusion_steps"])
    ddpm.load_state_dict(load_file(str(out / "ddpm.safetensors")))
    return config, model, ddpm


def evaluate(args: argparse.Namespace) -> None:
    out = Path(args.out)
    action_steps = args.action_steps or json.loads((out / "config.json").read_text())["action_steps"]
    select = f"_n{args.select}" if args.select else ""
    grid = "" if args.grid == "narrow" else f"_{args.grid}"  # Narrow's files keep their first names
    result_path = out / f"eval_{args.domain}{grid}_a{action_steps}{select}_s{args.seed}.json"
    if not result_path.exists():
        config, model, ddpm = load_head(out)
        make_agent = lambda env: head_agent(config, model, ddpm, args.seed, action_steps, args.select)  # noqa: E731
        result = evaluate_grids(get_task("peg-insertion"), make_agent, args.domain, (args.grid,), args.trials,
                                seed=args.seed, progress=True)
        result_path.write_text(json.dumps(result, indent=1))
    marker = result_path.with_suffix(".recorded")
    if args.records and not marker.exists():
        result, config = json.loads(result_path.read_text()), json.loads((out / "config.json").read_text())
        emit({"head": "diffusion", "checkpoint": config["checkpoint"], "data": config.get("data"),
              "train_windows": config.get("train_windows"), "chunk": config["chunk"],
              "raw_obs": config.get("raw_obs", False), "setpoint_lead": config.get("setpoint_lead", False),
              "tail_windows": config.get("tail_windows", False),
              "action_steps": action_steps, "select": args.select, "diffusion_steps": config["diffusion_steps"],
              "train_steps": config["steps"], "train_seed": config["seed"], "domain": args.domain, "grid": args.grid,
              "seed": args.seed,
              "trials": args.trials, "success": result["grids"][args.grid]["success_rate"]}, args.records)
        marker.touch()


def stages(args: argparse.Namespace) -> None:
    """How far the head gets through reach, grasp, lift, align and insert (session 41's stage protocol)."""
    config, model, ddpm = load_head(Path(args.out))
    action_steps = args.action_steps or config["action_steps"]
    task = get_task("peg-insertion")
    agent = head_agent(config, model, ddpm, args.seed, action_steps, args.select)
    rows = staged_rollouts(task, args.domain, None, agent, args.grid, args.trials, args.seed)
    closest = [r["closest_held"]["lateral_mm"] for r in rows if r["closest_held"] is not None]
    emit({"task": task.spec.name, "checkpoint": config["checkpoint"], "agent": f"diffusion head ({args.out})",
          "raw_obs": config.get("raw_obs", False), "setpoint_lead": config.get("setpoint_lead", False),
          "tail_windows": config.get("tail_windows", False), "action_steps": action_steps, "select": args.select,
          "grid": args.grid, "domain": args.domain, "seed": args.seed, "trials": args.trials,
          "mean": stage_means(rows), "closest_held_lateral_mm": closest, "episodes": rows},
         args.records)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    tr = sub.add_parser("train")
    tr.add_argument("--checkpoint", required=True)
    tr.add_argument("--data", required=True)
    tr.add_argument("--chunk", type=int, default=4)
    tr.add_argument("--action-steps", type=int, default=2)
    tr.add_argument("--diffusion-steps", type=int, default=50)
    tr.add_argument("--hidden", type=int, nargs="+", default=[512, 512, 512])
    tr.add_argument("--steps", type=int, default=30_000)
    tr.add_argument("--batch-size", type=int, default=256)
    tr.add_argument("--lr", type=float, default=3e-4)
    tr.add_argument("--log-every", type=int, default=1000)
    tr.add_argument("--raw-obs", action="store_true", help="condition on the normalised observation too")
    tr.add_argument("--setpoint-lead", action="store_true", help="condition on the set-point's lead over the TCP")
    tr.add_argument("--tail-windows", action="store_true", help="also train on windows in each episode's last steps")
    ev = sub.add_parser("evaluate")
    st = sub.add_parser("stages")
    for p, trials, seed in ((ev, 40, 1), (st, 20, 0)):
        p.add_argument("--domain", choices=("sim", "real"), required=True)
        p.add_argument("--grid", choices=("narrow", "wide"), default="narrow")
        p.add_argument("--trials", type=int, default=trials)
        p.add_argument("--action-steps", type=int, default=0, help="0: the trained value")
        p.add_argument("--records")
        p.add_argument("--seed", type=int, default=seed)
        p.add_argument("--select", type=int, default=0,
                       help="sample this many chunks and execute the one the world model scores best (0: one)")
    for p in (tr, ev, st):
        p.add_argument("--out", required=True)
    tr.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    {"train": train, "evaluate": evaluate, "stages": stages}[args.command](args)


if __name__ == "__main__":
    main()
