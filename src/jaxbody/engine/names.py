"""Names of the state, position, velocity and actuation entries of a compiled model (pydrake's
``GetPositionNames`` ... ``GetActuatorNames``).

Names read ``{model_instance}_{joint}_{suffix}`` as Drake writes them, with Drake's per-joint
suffixes (``JointKind.suffixes``: ``q``/``w`` for a revolute joint, ``qw qx qy qz x y z`` /
``wx wy wz vx vy vz`` for a quaternion floating joint, ...); Simbody's kinds, which Drake lacks,
follow the same pattern.
"""

from __future__ import annotations

POSITIONS, VELOCITIES = 0, 1


def entry_names(model, model_instance, prefix, always_suffix, which):
    """Names of q's (``which`` = POSITIONS) or v's (VELOCITIES) entries, in q (v) order, of
    every joint or of those of ``model_instance`` (a checked ModelInstanceIndex)."""
    J = model.joints
    start = J.q_start if which == POSITIONS else J.v_start
    joints = [j for j in range(len(J.names))
              if model_instance is None or J.instance[j] == int(model_instance)]
    names = []
    for j in sorted(joints, key=lambda j: start[j]):
        suffixes = J.kinds[j].suffixes[which]
        head = (f"{model.instances.names[J.instance[j]]}_" if prefix else "") + J.names[j]
        for s in suffixes:
            names.append(f"{head}_{s}" if always_suffix or len(suffixes) > 1 else head)
    return names


def actuator_names(model, model_instance, prefix):
    """Names of u's entries, ``{model_instance}_{actuator}``, of every actuator or of those of
    ``model_instance``."""
    A = model.actuators
    return [(f"{model.instances.names[A.instance[a]]}_" if prefix else "") + A.names[a]
            for a in range(len(A.names))
            if model_instance is None or A.instance[a] == int(model_instance)]
