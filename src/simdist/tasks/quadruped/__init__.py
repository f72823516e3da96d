"""Go2-like quadruped tasks."""
