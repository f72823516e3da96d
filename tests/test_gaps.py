"""A task's sim-to-real gap as data (simdist.tasks.gaps): groups cover the gap, `with_sim` puts groups back to sim."""

import dataclasses
import json
from pathlib import Path

import pytest

from simdist.cli import main
from simdist.tasks import get_task, task_names
from simdist.tasks.base import domain_physics
from simdist.tasks.gaps import ALL, gap_fields, gap_groups, reverted_fields, sim_value
from simdist.tasks.table_leg.task import TableLegTask

BENCHMARK_PHYSICS = Path(__file__).resolve().parents[1] / "benchmarks" / "physics"


@pytest.mark.parametrize("name", task_names())
def test_every_task_groups_cover_its_whole_gap(name):
    task = get_task(name)
    groups = gap_groups(task)
    assert gap_fields(task), f"{name} has no sim-to-real gap"
    assert groups[ALL] == gap_fields(task)
    assert set().union(*(set(f) for g, f in groups.items() if g != ALL)) == set(gap_fields(task))
    # putting the whole gap back leaves no field at its real value unless that value is sim's midpoint already
    physics = domain_physics(task, "real", {"with_sim": [ALL]})
    for field in gap_fields(task):
        assert getattr(physics, field) == sim_value(task, field)


def test_with_sim_puts_one_group_back_to_the_sim_midpoint():
    task = get_task("table-leg")
    sim, real = task.default_physics("sim"), task.default_physics("real")
    physics = domain_physics(task, "real", {"with_sim": ["arm"]})
    assert physics.joint_stiffness_scale_range == pytest.approx((1.0, 1.0))  # sim (0.8, 1.2), real 0.6
    assert physics.actuation_latency_range_s == (0.0, 0.0)
    low, high = sim.finger_friction_range
    assert physics.finger_friction_range == real.finger_friction_range != ((low + high) / 2,) * 2  # grasp: untouched
    changed = {f.name for f in dataclasses.fields(real) if getattr(physics, f.name) != getattr(real, f.name)}
    assert changed == set(gap_groups(task)["arm"])


def test_an_explicit_field_wins_over_with_sim_and_files_work(tmp_path):
    task = get_task("table-leg")
    physics = domain_physics(task, "real", {"with_sim": ["arm"], "actuation_latency_range_s": [0.01, 0.01]})
    assert physics.actuation_latency_range_s == (0.01, 0.01)
    path = tmp_path / "gap.json"
    path.write_text(json.dumps({"with_sim": "grasp"}))  # one group may be a plain string
    assert domain_physics(task, "real", path) == domain_physics(task, "real", {"with_sim": ["grasp"]})
    for group in ("perception", "arm", "grasp", "thread", "all"):  # the committed gap files name groups only
        data = json.loads((BENCHMARK_PHYSICS / f"table_leg_real_{group}_sim.json").read_text())
        assert data == {"with_sim": [group]}
    peg = get_task("peg-insertion")
    for group in ("perception", "arm", "contact", "all"):
        data = json.loads((BENCHMARK_PHYSICS / f"peg_real_{group}_sim.json").read_text())
        assert data == {"with_sim": [group]} and group in gap_groups(peg)


def test_field_names_are_groups_when_a_task_declares_none():
    task = get_task("pendulum")
    assert "actuator_delay_s" in gap_groups(task)
    assert reverted_fields(task, ["actuator_delay_s", "mass", "mass"]) == ("actuator_delay_s", "mass")
    env = task.make_env("real", {"with_sim": ["actuator_delay_s"]})
    assert env.physics.actuator_delay_s == task.default_physics("sim").actuator_delay_s


def test_bad_gap_requests_are_clear_errors():
    task = get_task("table-leg")
    with pytest.raises(KeyError, match="valid groups: .*'arm'"):
        domain_physics(task, "real", {"with_sim": ["arms"]})
    with pytest.raises(ValueError, match="domain 'real' only"):
        domain_physics(task, "sim", {"with_sim": ["arm"]})

    class Incomplete(TableLegTask):
        gap_groups = {"arm": ("joint_stiffness_scale_range",)}

    with pytest.raises(ValueError, match="in no gap group: .*thread_friction_torque_range_nm"):
        gap_groups(Incomplete())

    class Typo(TableLegTask):
        gap_groups = {**TableLegTask.gap_groups, "extra": ("no_such_field",)}

    with pytest.raises(ValueError, match="unknown physics fields"):
        gap_groups(Typo())


def test_with_sim_through_the_command_line(tmp_path, capsys, caplog):
    path = tmp_path / "real_with_sim_delay.json"
    path.write_text(json.dumps({"with_sim": ["actuator_delay_s", "max_torque"]}))
    assert (
        main(
            [
                "expert",
                "eval",
                "pendulum",
                "--domain",
                "real",
                "--physics",
                str(path),
                "--trials",
                "2",
                "--json",
                "--quiet",
            ]
        )
        == 0
    )
    assert "success_rate" in json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (
        main(
            [
                "expert",
                "eval",
                "pendulum",
                "--domain",
                "sim",
                "--physics",
                str(path),
                "--trials",
                "2",
                "--json",
                "--quiet",
            ]
        )
        == 2
    )
    assert "applies to domain 'real' only" in caplog.text
