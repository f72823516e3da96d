"""Teleoperated demonstrations: the task's teleoperator stand-in, successful attempts only, retries per grid."""


def test_demonstrations_keep_only_successful_attempts_and_say_when_short(caplog):
    from simdist.adaptation.demonstrations import collect_demonstrations, teleoperator
    from simdist.tasks import get_task

    task = get_task("pendulum")
    assert teleoperator(task).name == task.expert().name  # no teleoperator of its own: the expert
    demos = collect_demonstrations(task, 3, "default", seed=0)
    assert len(demos) == 3 and all(e.success for e in demos)

    class Clumsy:  # a teleoperator that never succeeds: nothing kept, a warning, a bounded number of attempts
        spec, grids = task.spec, task.grids

        def __getattr__(self, name):
            return getattr(task, name)

        def teleoperator(self):
            from simdist.tasks.pendulum.experts import EnergyPDPolicy

            return EnergyPDPolicy(name="idle", energy_gain=0.0, balance_angle=0.0)  # never swings up

    assert collect_demonstrations(Clumsy(), 2, "default", seed=0, max_attempts=3) == []
    assert "only 0 of 2" in caplog.text and "3 attempts" in caplog.text


def test_peg_teleoperator_inserts_in_real_where_the_expert_does_not():
    """The stand-in operator is the expert with a gentler alignment loop: it succeeds against the real arm's
    latency and soft servo, where the data-generation expert limit-cycles at the hole mouth."""
    from simdist.tasks import get_task
    from simdist.tasks.ur5e.rollout import success_rate

    task = get_task("peg-insertion")
    ics = task.initial_conditions("narrow", 2, seed=0)
    assert success_rate(task.make_env("real", seed=0), task.teleoperator(), ics)[0] == 1.0
    assert success_rate(task.make_env("real", seed=0), task.expert(), ics)[0] == 0.0


def test_demonstration_retries_stay_on_the_grid_that_failed(monkeypatch):
    """With `grid="all"`, demonstrations are split over the grids as a round is, and a failed attempt is retried
    on the same grid, so a hard grid is not silently replaced by an easy one."""
    from types import SimpleNamespace

    from simdist.adaptation import demonstrations
    from simdist.tasks import get_task

    task, original, grid_of, tried = get_task("peg-insertion"), demonstrations.round_initial_conditions, {}, []

    def recording_ics(task_, grid, n, seed):
        ics, labels = original(task_, grid, n, seed)
        grid_of.update({id(ic): g for ic, g in zip(ics, labels)})
        return ics, labels

    def scripted_rollout(task_, env, agent, ics, seed, source):  # the first wide attempt fails, all others succeed
        episodes = []
        for ic in ics:
            tried.append(grid_of[id(ic)])
            episodes.append(SimpleNamespace(success=tried != ["narrow", "narrow", "wide"]))
        return SimpleNamespace(episodes=episodes)

    monkeypatch.setattr(demonstrations, "round_initial_conditions", recording_ics)
    monkeypatch.setattr(demonstrations, "rollout", scripted_rollout)
    monkeypatch.setattr(demonstrations, "PrivilegedAgent", lambda *a, **k: None)
    kept = demonstrations.collect_demonstrations(task, 4, "all", seed=0)
    assert len(kept) == 4 and tried == ["narrow", "narrow", "wide", "wide", "wide"]
