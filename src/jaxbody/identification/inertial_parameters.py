"""The ten standard inertial parameters of a rigid body, its pseudo-inertia and log-Cholesky form.

Per body B, about its origin Bo and expressed in B [Atkeson, An & Hollerbach 1986]:

    π = (m, h_x, h_y, h_z, I_xx, I_yy, I_zz, I_xy, I_xz, I_yz) ∈ R¹⁰,
    h = m p_BoBcm_B                      (first mass moment, kg·m)
    I = I_BBo_B = m G_BBo_B              (rotational inertia about Bo, kg·m²)

jaxbody's Context stores (mass, com, unit_inertia) = (m, h / m, I / m); every dynamics quantity
(M(q), C(q, v) v, τ_g(q)) is linear in π. The pseudo-inertia [Wensing, Kim & Slotine 2018]

    J(π) = [[Σ, h], [hᵀ, m]] (4×4),      Σ = ½ tr(I) 1₃ − I = ∫ r rᵀ dm,

is positive definite exactly when π is physically consistent (a positive mass distribution
that is not confined to a plane). The log-Cholesky parameterization [Rucker & Wensing 2022,
"Smooth parameterization of rigid-body inertia", IEEE RA-L 7(2)] maps every θ ∈ R¹⁰ to such a
J, smoothly and one to one:

    θ = (α, d₁, d₂, d₃, s₁₂, s₂₃, s₁₃, t₁, t₂, t₃),
    U = e^α [[e^d₁, s₁₂, s₁₃, t₁], [0, e^d₂, s₂₃, t₂], [0, 0, e^d₃, t₃], [0, 0, 0, 1]],
    J = U Uᵀ,

so m = e^{2α} and an unconstrained optimizer over θ only ever visits physical inertias. All
functions here are pure ``jnp`` and broadcast over leading axes (one row per body).
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np

PARAMETER_NAMES = ("m", "hx", "hy", "hz", "Ixx", "Iyy", "Izz", "Ixy", "Ixz", "Iyz")
LOG_CHOLESKY_NAMES = ("alpha", "d1", "d2", "d3", "s12", "s23", "s13", "t1", "t2", "t3")
NUM_PARAMETERS = 10


def _check_last(name, x, n):
    x = jnp.asarray(x)
    if x.ndim < 1 or x.shape[-1] != n:
        raise ValueError(f"{name}: expected shape (..., {n}), got {x.shape}")
    return x


def _check_last2(name, x, n):
    x = jnp.asarray(x)
    if x.ndim < 2 or x.shape[-2:] != (n, n):
        raise ValueError(f"{name}: expected shape (..., {n}, {n}), got {x.shape}")
    return x


def rotational_inertia_matrix(pi):
    """I_BBo_B (..., 3, 3) from π (..., 10)."""
    pi = _check_last("rotational_inertia_matrix: pi", pi, NUM_PARAMETERS)
    xx, yy, zz, xy, xz, yz = (pi[..., k] for k in range(4, 10))
    rows = [jnp.stack([xx, xy, xz], -1), jnp.stack([xy, yy, yz], -1), jnp.stack([xz, yz, zz], -1)]
    return jnp.stack(rows, -2)


def inertial_parameters(mass, com, unit_inertia):
    """π (..., 10) from a body's mass (...,) kg, ``p_BoBcm_B`` (..., 3) m and ``G_BBo_B``
    (..., 3, 3) m².

    Example:
        >>> import numpy as np
        >>> pi = inertial_parameters(2.0, np.array([0.0, 0.0, 0.5]), np.eye(3))
        >>> np.asarray(pi).tolist()
        [2.0, 0.0, 0.0, 1.0, 2.0, 2.0, 2.0, 0.0, 0.0, 0.0]
    """
    mass = jnp.asarray(mass)
    com = _check_last("inertial_parameters: com", com, 3)
    G = _check_last2("inertial_parameters: unit_inertia", unit_inertia, 3)
    m = mass[..., None]
    I = mass[..., None, None] * G
    diag = jnp.stack([I[..., 0, 0], I[..., 1, 1], I[..., 2, 2]], -1)
    off = jnp.stack([I[..., 0, 1], I[..., 0, 2], I[..., 1, 2]], -1)
    return jnp.concatenate([m, m * com, diag, off], -1)


def mass_com_unit_inertia(pi):
    """(mass (...,), com (..., 3), unit_inertia (..., 3, 3)) of π (..., 10): the inverse of
    `inertial_parameters`. A zero mass gives NaNs (com and G are undefined there)."""
    pi = _check_last("mass_com_unit_inertia: pi", pi, NUM_PARAMETERS)
    m = pi[..., 0]
    return m, pi[..., 1:4] / m[..., None], rotational_inertia_matrix(pi) / m[..., None, None]


def inertial_parameters_from_context(context, bodies):
    """π (len(bodies), 10) of ``bodies`` (body indices) from a Context's parameters."""
    b = np.asarray(bodies, np.int64)
    P = context.parameters
    return inertial_parameters(P.mass[b], P.com[b], P.unit_inertia[b])


def context_with_inertial_parameters(context, bodies, pi):
    """A copy of ``context`` whose ``bodies`` have inertial parameters ``pi`` (len(bodies), 10).

    Differentiable in ``pi`` (the dynamics of the result are linear in it). Masses must be
    nonzero.
    """
    b = np.asarray(bodies, np.int64)
    pi = _check_last("context_with_inertial_parameters: pi", pi, NUM_PARAMETERS)
    if pi.shape != (b.size, NUM_PARAMETERS):
        raise ValueError(f"context_with_inertial_parameters: pi: expected shape "
                         f"({b.size}, {NUM_PARAMETERS}), got {pi.shape}")
    P = context.parameters
    m, c, G = mass_com_unit_inertia(pi.astype(P.mass.dtype))
    params = dataclasses.replace(P, mass=P.mass.at[b].set(m), com=P.com.at[b].set(c),
                                 unit_inertia=P.unit_inertia.at[b].set(G))
    return context.replace(parameters=params)


# --- Pseudo-inertia ---------------------------------------------------------------------------
def pseudo_inertia(pi):
    """J(π) (..., 4, 4) = [[½ tr(I) 1 − I, h], [hᵀ, m]]."""
    pi = _check_last("pseudo_inertia: pi", pi, NUM_PARAMETERS)
    I = rotational_inertia_matrix(pi)
    eye = jnp.eye(3, dtype=I.dtype)
    Sigma = 0.5 * jnp.trace(I, axis1=-2, axis2=-1)[..., None, None] * eye - I
    h = pi[..., 1:4]
    top = jnp.concatenate([Sigma, h[..., :, None]], -1)
    bottom = jnp.concatenate([h, pi[..., :1]], -1)[..., None, :]
    return jnp.concatenate([top, bottom], -2)


def inertial_parameters_from_pseudo_inertia(J):
    """π (..., 10) from J (..., 4, 4): m = J₃₃, h = J[:3, 3], I = tr(Σ) 1 − Σ."""
    J = _check_last2("inertial_parameters_from_pseudo_inertia: J", J, 4)
    J = 0.5 * (J + jnp.swapaxes(J, -1, -2))
    Sigma = J[..., :3, :3]
    I = jnp.trace(Sigma, axis1=-2, axis2=-1)[..., None, None] * jnp.eye(3, dtype=J.dtype) - Sigma
    diag = jnp.stack([I[..., 0, 0], I[..., 1, 1], I[..., 2, 2]], -1)
    off = jnp.stack([I[..., 0, 1], I[..., 0, 2], I[..., 1, 2]], -1)
    return jnp.concatenate([J[..., 3:, 3], J[..., :3, 3], diag, off], -1)


def is_physically_consistent(pi, tol=0.0):
    """True where J(π) ≻ 0, i.e. λ_min(J) > ``tol`` (shape (...,))."""
    return jnp.linalg.eigvalsh(pseudo_inertia(pi))[..., 0] > tol


# --- Log-Cholesky parameterization -------------------------------------------------------------
def log_cholesky_factor(theta):
    """U (..., 4, 4), upper triangular with a positive diagonal, from θ (..., 10)."""
    theta = _check_last("log_cholesky_factor: theta", theta, NUM_PARAMETERS)
    a, d1, d2, d3, s12, s23, s13, t1, t2, t3 = (theta[..., k] for k in range(10))
    z, one = jnp.zeros_like(a), jnp.ones_like(a)
    rows = [jnp.stack([jnp.exp(d1), s12, s13, t1], -1), jnp.stack([z, jnp.exp(d2), s23, t2], -1),
            jnp.stack([z, z, jnp.exp(d3), t3], -1), jnp.stack([z, z, z, one], -1)]
    return jnp.exp(a)[..., None, None] * jnp.stack(rows, -2)


def pseudo_inertia_from_log_cholesky(theta):
    """J = U Uᵀ (..., 4, 4), positive definite for every finite θ (..., 10)."""
    U = log_cholesky_factor(theta)
    return U @ jnp.swapaxes(U, -1, -2)


def inertial_parameters_from_log_cholesky(theta):
    """π (..., 10) of θ (..., 10); always physically consistent.

    Example:
        >>> import jax.numpy as jnp
        >>> float(inertial_parameters_from_log_cholesky(jnp.zeros(10))[0])  # m = e^(2α)
        1.0
    """
    return inertial_parameters_from_pseudo_inertia(pseudo_inertia_from_log_cholesky(theta))


def log_cholesky_from_pseudo_inertia(J):
    """θ (..., 10) with J = U(θ) U(θ)ᵀ, for J (..., 4, 4) ≻ 0 (NaN otherwise).

    U is the "upper" Cholesky factor: with the reversal permutation P (P = Pᵀ = P⁻¹),
    P J P = L Lᵀ gives J = (P L P)(P L P)ᵀ and U = P L P.
    """
    J = _check_last2("log_cholesky_from_pseudo_inertia: J", J, 4)
    rev = jnp.arange(3, -1, -1)
    L = jnp.linalg.cholesky(J[..., rev, :][..., :, rev])
    U = L[..., rev, :][..., :, rev]
    e_a = U[..., 3, 3]
    V = U / e_a[..., None, None]
    logd = jnp.log(jnp.stack([V[..., 0, 0], V[..., 1, 1], V[..., 2, 2]], -1))
    rest = jnp.stack([V[..., 0, 1], V[..., 1, 2], V[..., 0, 2], V[..., 0, 3], V[..., 1, 3],
                      V[..., 2, 3]], -1)
    return jnp.concatenate([jnp.log(e_a)[..., None], logd, rest], -1)


def log_cholesky_from_inertial_parameters(pi):
    """θ (..., 10) of a physically consistent π (..., 10) (NaN where J(π) is not ≻ 0)."""
    return log_cholesky_from_pseudo_inertia(pseudo_inertia(pi))


def central_rotational_inertia(pi):
    """I_BBcm_B (..., 3, 3), the rotational inertia about the center of mass, of π (..., 10):
    I_Bo − m (|c|² 1 − c cᵀ) with c = h / m."""
    m, c, _ = mass_com_unit_inertia(pi)
    shift = (jnp.sum(c * c, -1)[..., None, None] * jnp.eye(3, dtype=c.dtype)
             - c[..., :, None] * c[..., None, :])
    return rotational_inertia_matrix(pi) - m[..., None, None] * shift

