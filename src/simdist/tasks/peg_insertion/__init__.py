"""Peg insertion (issue #4): a UR5e-like arm picks a 16 mm square peg and inserts it into a fixture.

See docs/tasks/peg-insertion.md for the model figures, observation layout, physics table and measured results.
"""

from simdist.tasks import registry
from simdist.tasks.peg_insertion.task import (
    TASK_NAME,
    TOOL_FRAME_TASK_NAME,
    PegInsertionTask,
    PegInsertionToolFrameTask,
)

registry.register(TASK_NAME, PegInsertionTask)
registry.register(TOOL_FRAME_TASK_NAME, PegInsertionToolFrameTask)

__all__ = ["PegInsertionTask", "PegInsertionToolFrameTask", "TASK_NAME", "TOOL_FRAME_TASK_NAME"]
