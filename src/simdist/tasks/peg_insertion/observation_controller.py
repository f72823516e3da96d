"""A controller acting only on what the robot observes: the benchmark's calibration tool (docs/tasks/peg-insertion.md,
"Calibration rules"), never a data source.

It reads the perceived peg and hole poses, the tool pose from the encoders, the gripper width and the flange
force/torque sensor, as a UR5e cell program would:

1. pick: the scripted expert's pick phase on the perceived peg (averaged over the steps, as the peg stands still);
2. carry: the peg over the perceived hole, its yaw turned to the hole's, the sensor tared in free air. Each object's
   estimate averages the wrist camera's readings weighted by its precision at their distance, and once the camera
   is over the object only the readings from there (the hand-eye error's shift depends on the viewing ray);
3. descend until the tool stops with the sensor feeling the contact;
4. search: an Archimedean spiral around the perceived hole while pressing, until the tool drops into the hole (the
   perception's per-episode offset is larger than the clearance, so seeing alone cannot seat the peg);
5. insert: push down, giving way to the sensed side forces (the bevel steers the peg to the axis).

Its only memory is the estimates' averages, the tare, the contact height, the last height (and for how many steps it
stood still) and the spiral's angle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simdist.tasks.base import PROPRIO_KEY, WRENCH_KEY
from simdist.tasks.peg_insertion.env import CONTROL
from simdist.tasks.peg_insertion.expert import ScriptedExpert
from simdist.tasks.peg_insertion.layout import PROPRIO
from simdist.tasks.peg_insertion.model import SCENE
from simdist.tasks.peg_insertion.perception import NEAR_NOISE_M, camera_pose, noise_std
from simdist.tasks.peg_insertion.reward import PegState
from simdist.tasks.peg_insertion.rotations import SQUARE_SYMMETRY, square_yaw_error
from simdist.tasks.ur5e.actions import next_setpoint
from simdist.tasks.ur5e.expert import CLOSE, Goal, goal_to_action
from simdist.tasks.ur5e.robot import GRIPPER
from simdist.tasks.ur5e.rotations import rot6_to_matrix, rotvec_to_matrix, tool_down_rotation, yaw_of

# A grasped peg's bottom lies this far below the tool centre: the expert grips it one pad half-height plus 4 mm
# below its top (reward.PegState.grasp_point).
PEG_BOTTOM_BELOW_TCP_M = SCENE.peg_length - GRIPPER.pad_half_size[2] - 0.004
# An object this close to the wrist camera's axis is seen from above: the readings the controller keeps once it has
# one (a hand-eye rotation error shifts an estimate by rotation x range, which differs off the axis).
ON_AXIS_M = 0.01


class Estimate:
    """A running mean of an object's position readings, weighted by the camera's published precision at their
    distance; it starts over at the first reading from above and then keeps only those."""

    def __init__(self):
        self.sum, self.weight, self.on_axis = np.zeros(3), 0.0, False

    def add(self, reading: np.ndarray, camera: tuple[np.ndarray, np.ndarray]) -> None:
        rel = reading - camera[0]
        axis = camera[1][:, 2]
        on_axis = np.linalg.norm(rel - (rel @ axis) * axis) < ON_AXIS_M
        if on_axis and not self.on_axis:
            self.sum, self.weight, self.on_axis = np.zeros(3), 0.0, True
        if self.on_axis and not on_axis:
            return
        w = noise_std(NEAR_NOISE_M, float(np.linalg.norm(rel))) ** -2
        self.sum, self.weight = self.sum + w * reading, self.weight + w

    @property
    def mean(self) -> np.ndarray:
        return self.sum / self.weight


@dataclass(frozen=True)
class ObservationTuning:
    name: str = "observation_controller"
    hover_m: float = 0.012  # peg bottom above the perceived mouth before descending
    align_tolerance_m: float = 0.0005  # tool xy error (encoders: exact) allowed before descending
    yaw_tolerance_rad: float = 0.02
    fine_gain: float = 0.7
    tare_steps: int = 3  # free-air readings averaged into the tare before descending
    descend_push_m: float = 0.0015  # set-point lead below the tool while descending (about 9 N once touching)
    contact_force_n: float = 8.0  # tared upward force that means the peg touches (about 2.3 sigma of the noise)
    search_push_m: float = 0.0015  # lead while searching: enough to drop in, little friction on the top
    insert_push_m: float = 0.004
    # No push above this tared force: pressed harder, the peg slid up between the pads (measured: from about 18 N).
    force_limit_n: float = 12.0
    relief_push_m: float = 0.0003
    # The tool falls this far in one step with the force released: the peg has dropped into the hole.
    drop_m: float = 0.001
    # The tool this far below the contact height: the peg is in the hole (a peg that slides in over several steps
    # never falls drop_m in one). Safe since the noslip solver stopped the grip's creep (docs: "Contact model").
    entered_m: float = 0.0015
    stall_m: float = 0.0005  # the descending tool sank less than this in a step: it has stopped
    stalled_steps: int = 3
    spiral_pitch_m: float = 0.001  # below the capture width (half clearance + chamfer): no gap is skipped
    spiral_step_m: float = 0.0012  # arc length per control step
    spiral_max_radius_m: float = 0.006  # about 4 sigma of the real perception's peg-to-hole error
    compliance_m_per_n: float = 0.00005  # side-force admittance while inserting (10 N: 0.5 mm)


class ObservationController:
    """``act(obs) -> action`` on the task's observation dict; ``reset()`` at each episode start."""

    def __init__(self, tuning: ObservationTuning = ObservationTuning()):
        self.tuning = tuning
        self.name = tuning.name
        self._picker = ScriptedExpert()
        self.reset()

    def reset(self, rng: np.random.Generator | None = None) -> None:
        self._peg, self._hole = Estimate(), Estimate()
        self._hole_yaw_sum = np.zeros(2)
        self._peg_yaw_sum = np.zeros(2)
        self._setpoint: np.ndarray | None = None
        self._closing = False
        self._grasped = False
        self._tare: list[np.ndarray] = []
        self._tare_value: np.ndarray | None = None
        self._contact_z: float | None = None
        self._last_z: float | None = None
        self._stalled = 0
        self._entered = False
        self._theta = 0.0
        self.phase = "pick"

    # ------------------------------------------------------------------------------------------------ estimates
    def _read(self, obs: dict) -> dict:
        proprio = np.asarray(obs[PROPRIO_KEY], dtype=np.float64)
        get = lambda name: PROPRIO.get(proprio, name)  # noqa: E731
        tcp_pos, tcp_rot = get("tcp_pos"), rot6_to_matrix(get("tcp_rot6"))
        if self._setpoint is None:  # the controller's set-point starts at the measured tool (env.reset)
            self._setpoint = tcp_pos.copy()
        camera = camera_pose(tcp_pos, tcp_rot)
        self._hole.add(get("hole_pos_est"), camera)
        self._hole_yaw_sum += get("hole_yaw_est")
        if not self._grasped:  # a standing peg: average its estimate (noise falls, the calibration's offset stays)
            self._peg.add(get("peg_pos_est"), camera)
            self._peg_yaw_sum += get("peg_yaw_est")
        return {
            "tcp_pos": tcp_pos,
            "tcp_rot": tcp_rot,
            "opening": float(get("gripper_opening")[0]),
            "peg": self._peg.mean,
            "peg_axis": get("peg_axis_est"),
            "hole": self._hole.mean,
            "hole_yaw": mean_square_yaw(self._hole_yaw_sum),
            "peg_yaw": mean_square_yaw(self._peg_yaw_sum),
            "wrench": np.asarray(obs[WRENCH_KEY], dtype=np.float64),
        }

    def _world_force(self, seen: dict) -> np.ndarray:
        """Tared external force on the tool, world frame (the sensor reads in the flange frame)."""
        force = seen["wrench"][:3] - (self._tare_value if self._tare_value is not None else 0.0)
        return seen["tcp_rot"] @ force

    # ------------------------------------------------------------------------------------------------ policy
    def act(self, obs: dict) -> np.ndarray:
        seen = self._read(obs)
        self._update_grasp(seen)
        goal = self._carry_and_insert(seen) if self._grasped else self._pick(seen)
        action = goal_to_action(
            goal, seen["tcp_pos"], seen["tcp_rot"], self._setpoint, CONTROL, self.tuning.fine_gain, 1.0
        )
        self._closing = bool(action[6] > 0)
        self._setpoint = next_setpoint(self._setpoint, seen["tcp_pos"], action, CONTROL)
        return action

    def _update_grasp(self, seen: dict) -> None:
        held = SCENE.peg_side - 0.004 < seen["opening"] < SCENE.peg_side + 0.003
        if self._closing and held:
            self._grasped = True
        elif not held:  # opened, or closed on nothing: start over from the pick
            if self._grasped:
                self.reset()
                self._setpoint = seen["tcp_pos"].copy()
            self._grasped = False

    def _pick(self, seen: dict) -> Goal:
        """The scripted expert's pick phase, on the perceived (averaged) peg standing upright."""
        self.phase = "pick"
        state = PegState(
            tcp_pos=seen["tcp_pos"],
            tcp_rot=seen["tcp_rot"],
            gripper_opening=seen["opening"],
            gripper_closing=self._closing,
            peg_pos=seen["peg"],
            peg_rot=_yaw_matrix(seen["peg_yaw"]),
            hole_pos=seen["hole"],
            hole_yaw=seen["hole_yaw"],
        )
        if self._closing and self._picker._closing_on_peg(state):
            return Goal(seen["tcp_pos"].copy(), seen["tcp_rot"], CLOSE)  # keep closing until the width says held
        return self._picker._pick(state)

    def _carry_and_insert(self, seen: dict) -> Goal:
        t = self.tuning
        tcp, hole = seen["tcp_pos"], seen["hole"]
        tool_yaw = yaw_of(seen["tcp_rot"])  # the pads square the peg: its yaw is the tool's, modulo a quarter turn
        yaw_error = square_yaw_error(seen["hole_yaw"], tool_yaw)
        tool_rot = rotvec_to_matrix(np.array([0.0, 0.0, yaw_error])) @ tool_down_rotation(tool_yaw)
        bottom_z = tcp[2] - PEG_BOTTOM_BELOW_TCP_M
        hover_tcp_z = hole[2] + t.hover_m + PEG_BOTTOM_BELOW_TCP_M
        xy_error = hole[:2] - tcp[:2]
        if self._contact_z is None:
            if np.linalg.norm(xy_error) > 0.01:  # travel: lift clear of the fixture first
                self.phase, self._tare = "carry", []
                z = hover_tcp_z if bottom_z > hole[2] + 0.5 * t.hover_m else tcp[2] + 0.02
                target_xy = hole[:2] if bottom_z > hole[2] + 0.5 * t.hover_m else tcp[:2]
                return Goal(np.array([*target_xy, z]), tool_rot, CLOSE)
            aligned = np.linalg.norm(xy_error) < t.align_tolerance_m and abs(yaw_error) < t.yaw_tolerance_rad
            # Aligned once is enough: a bevel that pushes the descending peg aside must not send it back up.
            if self._tare_value is None and (not aligned or len(self._tare) < t.tare_steps):
                self.phase = "align"
                if aligned:
                    self._tare.append(seen["wrench"][:3])
                return Goal(np.array([*hole[:2], hover_tcp_z]), tool_rot, CLOSE)
            if self._tare_value is None:
                self._tare_value = np.mean(self._tare, axis=0)
            if not self._touching(seen) and bottom_z > hole[2] - 0.004:
                self.phase = "descend"
                return Goal(np.array([*hole[:2], tcp[2]]), tool_rot, CLOSE, push_m=t.descend_push_m)
            self._contact_z, self._last_z = tcp[2], None
        fell = self._last_z is not None and tcp[2] < self._last_z - t.drop_m
        sunk = tcp[2] < self._contact_z - t.entered_m  # a slow entry, or a peg that jammed part way down
        if not self._entered and (sunk or (fell and self._world_force(seen)[2] < t.contact_force_n)):
            self._entered = True
        self._last_z = tcp[2]
        if self._entered:  # in the hole: push down, giving way to the side forces of the bevel and the walls
            self.phase = "insert"
            side = self._world_force(seen)[:2] * t.compliance_m_per_n
            return self._press(seen, np.array([*(tcp[:2] + side), tcp[2]]), tool_rot, t.insert_push_m)
        self.phase = "search"
        return self._press(seen, np.array([*(hole[:2] + self._spiral_offset()), tcp[2]]), tool_rot, t.search_push_m)

    def _touching(self, seen: dict) -> bool:
        """The descending tool has stopped (sank less than ``stall_m`` in the last step) and feels the contact, or
        has stopped for ``stalled_steps``. The force alone, at 2.3 sigma of the sensor's noise, now and then fires in
        free air; the stop alone fires on a peg the bevel holds at less than the contact force."""
        t, z = self.tuning, seen["tcp_pos"][2]
        stalled = self._last_z is not None and self._last_z - z < t.stall_m
        self._stalled, self._last_z = (self._stalled + 1 if stalled else 0), z
        return (stalled and self._world_force(seen)[2] > t.contact_force_n) or self._stalled >= t.stalled_steps

    def _press(self, seen: dict, target: np.ndarray, tool_rot: np.ndarray, push_m: float) -> Goal:
        """Push down with ``push_m`` of set-point lead; past the force limit, pull the set-point up to a light lead
        (a goal at the tool's own height would leave the set-point, and the force, where they are)."""
        if self._world_force(seen)[2] > self.tuning.force_limit_n:
            push_m = min(push_m, self.tuning.relief_push_m)
        return Goal(target, tool_rot, CLOSE, push_m=push_m)

    def _spiral_offset(self) -> np.ndarray:
        """The next point of an Archimedean spiral r = pitch * theta / 2 pi around the perceived hole, a constant
        arc length per step; it starts over at the centre past the largest radius."""
        t = self.tuning
        radius = t.spiral_pitch_m * self._theta / (2 * np.pi)
        if radius > t.spiral_max_radius_m:
            self._theta, radius = 0.0, 0.0
        self._theta += t.spiral_step_m / max(radius, t.spiral_step_m)
        radius = t.spiral_pitch_m * self._theta / (2 * np.pi)
        return radius * np.array([np.cos(self._theta), np.sin(self._theta)])


def mean_square_yaw(features_sum: np.ndarray) -> float:
    """The yaw of a square from the sum of its (cos 4y, sin 4y) readings (a circular mean)."""
    return float(np.arctan2(features_sum[1], features_sum[0]) / SQUARE_SYMMETRY)


def _yaw_matrix(yaw: float) -> np.ndarray:
    c, s = np.cos(yaw), np.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def observation_controller(tuning: ObservationTuning = ObservationTuning()) -> ObservationController:
    return ObservationController(tuning)


def run_episode(env, controller: ObservationController, initial_condition, seed: int) -> bool:
    """One episode of ``controller`` on ``env``'s observations; True if the peg was seated."""
    obs, _ = env.reset(seed=seed, options={"initial_condition": initial_condition})
    controller.reset()
    done, info = False, {"success": False}
    while not done:
        obs, _, terminated, truncated, info = env.step(controller.act(obs))
        done = terminated or truncated
    return bool(info["success"])


def success_rate(
    task,
    domain: str,
    grid: str,
    trials: int,
    physics=None,
    seed: int = 0,
    tuning: ObservationTuning = ObservationTuning(),
) -> tuple[int, int]:
    """(seated, trials) of the controller over ``task.initial_conditions(grid, trials, seed)`` in ``domain``."""
    env = task.make_env(domain, physics, seed=seed)
    controller = observation_controller(tuning)
    ics = task.initial_conditions(grid, trials, seed=seed)
    return sum(run_episode(env, controller, ic, seed * 1000 + i) for i, ic in enumerate(ics)), len(ics)
