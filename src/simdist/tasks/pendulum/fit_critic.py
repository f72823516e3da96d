"""Regenerate the shipped pendulum critic: `python -m simdist.tasks.pendulum.fit_critic`."""

import logging

from simdist.experts.fitted_critic import fit_and_save
from simdist.tasks.pendulum import CRITIC_DIR, CRITIC_FIT, PendulumTask

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    r2 = fit_and_save(PendulumTask(), CRITIC_DIR, CRITIC_FIT)
    logging.info("saved critic to %s (held-out R² %.3f)", CRITIC_DIR, r2)
