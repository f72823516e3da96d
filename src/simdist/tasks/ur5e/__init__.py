"""Shared robot of the manipulation tasks: UR5e-like arm, 2F-85-like gripper, 5 Hz set-point controller.

Not a task itself (nothing is registered); peg_insertion and table_leg build their scenes and envs on it.
"""
