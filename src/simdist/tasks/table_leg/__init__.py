"""Table leg (issue #8): a UR5e-like arm picks a furniture leg, aligns its stud over a tabletop's threaded hole,
inserts it and screws it in until seated (FurnitureBench's square-table leg).

See docs/tasks/table-leg.md for the thread model, observation layout, physics table and measured results.
"""

from simdist.tasks import registry
from simdist.tasks.table_leg.task import TASK_NAME, TableLegTask

registry.register(TASK_NAME, TableLegTask)

__all__ = ["TableLegTask", "TASK_NAME"]
