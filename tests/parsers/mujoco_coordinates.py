"""The one converter between MuJoCo's generalized coordinates and jaxbody's, by joint name.

MuJoCo (per joint, in its own order): hinge/slide ``qpos = [θ]``, ``qvel = [θ̇]``; ball
``qpos = [qw qx qy qz]`` of R_FM, ``qvel = w_FM`` expressed in the child frame M; free
``qpos = [x y z qw qx qy qz]`` (pose of the body in the world), ``qvel = [v_WB in W; w_WB in
B]``. jaxbody (Drake): BallJoint ``q = [qw qx qy qz]``, ``v = w_FM`` expressed in F;
QuaternionFloatingJoint ``q = [qw qx qy qz x y z]``, ``v = [w_WB in W; v_WB in W]``.

So ``v_jb = T(q) v_mj`` with T a permutation except for the rotations ``R_FM`` of ball and
free joints. Since ``d/dt (R w_M) = R ẇ_M + w_F × w_F = R ẇ_M``, the map has no velocity-
product term: ``v̇_jb = T v̇_mj``. Power is kept, so forces map as ``τ_mj = Tᵀ τ_jb`` and the
mass matrix as ``M_mj = Tᵀ M_jb T``.
"""

from __future__ import annotations

import numpy as np


def quat_to_rotation(q):
    w, x, y, z = np.asarray(q, float) / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


class MujocoCoordinates:
    """Maps MuJoCo states of ``mj_model`` to jaxbody states of the finalized ``plant``.

    Every MuJoCo joint must have a jaxbody joint of the same name (the MJCF reader keeps the
    names, and names MuJoCo's unnamed joint j ``joint<j>``, with ``_`` appended while that is taken); jaxbody may have more joints, but
    only welds (no dofs).
    """

    def __init__(self, mj_model, plant):
        import mujoco

        assert plant.num_velocities() == mj_model.nv and plant.num_positions() == mj_model.nq
        self.nq, self.nv = mj_model.nq, mj_model.nv
        self.joints = []  # (kind, MuJoCo qpos start, MuJoCo dof start, jaxbody q, v start)
        kinds = {int(mujoco.mjtJoint.mjJNT_FREE): "free", int(mujoco.mjtJoint.mjJNT_BALL): "ball",
                 int(mujoco.mjtJoint.mjJNT_HINGE): "1dof", int(mujoco.mjtJoint.mjJNT_SLIDE): "1dof"}
        names = [mujoco.mj_id2name(mj_model, mujoco.mjtObj.mjOBJ_JOINT, j)
                 for j in range(mj_model.njnt)]
        for j, name in enumerate(names):
            if name is None:  # the reader's name for an unnamed joint
                name = f"joint{j}"
                while name in names:
                    name += "_"
            joint = plant.GetJointByName(name)
            self.joints.append((kinds[int(mj_model.jnt_type[j])], mj_model.jnt_qposadr[j],
                                mj_model.jnt_dofadr[j], joint.position_start(),
                                joint.velocity_start()))

    def q(self, qpos):
        """jaxbody q of MuJoCo ``qpos``."""
        q = np.zeros(self.nq)
        for kind, a, _, s, _ in self.joints:
            if kind == "free":
                q[s:s + 4], q[s + 4:s + 7] = qpos[a + 3:a + 7], qpos[a:a + 3]
            elif kind == "ball":
                q[s:s + 4] = qpos[a:a + 4]
            else:
                q[s] = qpos[a]
        return q

    def T(self, qpos):
        """``(nv, nv)`` with ``v_jb = T v_mj`` at ``qpos``."""
        T = np.zeros((self.nv, self.nv))
        for kind, a, d, _, s in self.joints:
            if kind == "free":
                T[s:s + 3, d + 3:d + 6] = quat_to_rotation(qpos[a + 3:a + 7])
                T[s + 3:s + 6, d:d + 3] = np.eye(3)
            elif kind == "ball":
                T[s:s + 3, d:d + 3] = quat_to_rotation(qpos[a:a + 4])
            else:
                T[s, d] = 1.0
        return T

    def random_qpos(self, mj_model, rng):
        """A random MuJoCo configuration (unit quaternions, angles in [-1, 1] rad)."""
        qpos = np.array(mj_model.qpos0, float)
        for kind, a, _, _, _ in self.joints:
            if kind == "free":
                qpos[a:a + 3] = rng.normal(size=3)
                qpos[a + 3:a + 7] = _unit(rng.normal(size=4))
            elif kind == "ball":
                qpos[a:a + 4] = _unit(rng.normal(size=4))
            else:
                qpos[a] = rng.uniform(-1, 1)
        return qpos


def _unit(x):
    return x / np.linalg.norm(x)


def body_inertias(plant, mj, i, name):
    """(m, p_BoBcm_B, I_Bcm_B) of jaxbody's body ``name`` and MuJoCo's rotational inertia of
    body ``i`` about its COM, in the body frame (from ``body_iquat``, ``body_inertia``)."""
    import mujoco

    M = plant.GetBodyByName(name).default_spatial_inertia()
    m, c = float(M.get_mass()), np.asarray(M.get_com())
    I = m * (np.asarray(M.get_unit_inertia().CopyToFullMatrix3())
             - (c @ c * np.eye(3) - np.outer(c, c)))
    R = np.zeros(9)
    mujoco.mju_quat2Mat(R, mj.body_iquat[i])
    I_mj = R.reshape(3, 3) @ np.diag(mj.body_inertia[i]) @ R.reshape(3, 3).T
    return m, c, I, I_mj
