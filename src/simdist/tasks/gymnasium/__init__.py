"""Gymnasium MuJoCo envs as simdist tasks: a `GymTaskSpec` and privileged policies make a registered Task.

    spec = GymTaskSpec(name="inverted-pendulum", env_id="InvertedPendulum-v5", episode_steps=100,
                       state={"cart_x": Read("qpos", 0), "pole_angle": Read("qpos", 1), ...},
                       success=lambda s: abs(s["pole_angle"]) < 0.2,
                       physics=(PhysicsParam("pole_mass", "body_mass", "pole"), ...),
                       randomize={"pole_mass": (0.8, 1.2)}, real={"pole_mass_scale": 1.6, "action_delay_steps": 1})
    register_gym_task(spec, expert=lambda task: MyExpert(task.layout), critic_dir=Path(__file__).with_name("critic"))

`pip install "simdist[gym]"` brings Gymnasium's MuJoCo dependencies. examples/inverted_pendulum and examples/reacher
are complete tasks; docs/new-task.md explains every part (termination, episode length, what the critic needs).
"""

from simdist.tasks.gymnasium.spec import GymTaskSpec, PhysicsParam, PrivilegedLayout, Read
from simdist.tasks.gymnasium.task import GymTask, register_gym_task

__all__ = ["GymTask", "GymTaskSpec", "PhysicsParam", "PrivilegedLayout", "Read", "register_gym_task"]
