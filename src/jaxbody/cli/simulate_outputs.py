"""What ``jaxbody simulate`` writes: the ``--out`` .npz, the plot beside it (energy, contacts,
solver iterations) and the ``--html`` animation."""

from __future__ import annotations

import importlib.util
import os

import numpy as np

from jaxbody.cli.models import CliError


def write_npz(path, plant, context, x0, cat, N, step, discrete):
    nq = plant.num_positions()
    t0 = float(context.time)
    X = np.concatenate([np.asarray(x0)[..., None, :], cat["states"]], -2)
    data = {"times": t0 + step * np.arange(N + 1), "q": X[..., :nq], "v": X[..., nq:]}
    if discrete:  # per step k (t_k -> t_k+1), at the configuration q_k; forces on body A (the
        # geometry registered first: the model's, not the ground's)
        data.update(step_times=data["times"][:-1], contact_points=cat["p"], contact_forces=cat["f"],
                    contact_active=cat["a"], sap_iterations=cat["it"].astype(np.int32),
                    sap_converged=cat["ok"] > 0)
    try:
        np.savez(path, **data)
    except OSError as e:
        raise CliError(f"--out: cannot write {path}: {e.strerror or e}") from None


def write_plot(path, times, energy, cat, discrete, batched):
    """A PNG beside the .npz: total energy over time and, for a discrete plant, active contacts
    and SAP iterations per step (env 0 of a batch). Returns the file written, or None when
    matplotlib is not installed."""
    if importlib.util.find_spec("matplotlib") is None:
        return None
    from matplotlib.figure import Figure

    rows = 3 if discrete else 1
    fig = Figure(figsize=(7.0, 2.2 * rows), layout="constrained")
    axes = fig.subplots(rows, 1, sharex=True, squeeze=False)[:, 0]
    e = energy[0] if batched else energy
    axes[0].plot(times, e)
    axes[0].set_ylabel("energy (J)")
    if discrete:
        n = cat["n"][0] if batched else cat["n"]
        it = cat["it"][0] if batched else cat["it"]
        axes[1].step(times[:-1], n, where="post")
        axes[1].set_ylabel("active contacts")
        axes[2].step(times[:-1], it, where="post")
        axes[2].set_ylabel("SAP iterations")
    axes[-1].set_xlabel("time (s)")
    out = os.path.splitext(path)[0] + ".png"
    try:
        fig.savefig(out, dpi=100)
    except OSError as e:
        raise CliError(f"--out: cannot write {out}: {e.strerror or e}") from None
    return out


def _animation(model, x0, cat, N, step, discrete, B):
    """(X (N + 1, nq + nv) of env 0, times, contact keyword arguments) to draw."""
    X = np.concatenate([np.asarray(x0)[..., None, :], cat["states"]], -2)
    if B > 1:
        X = X[0]
    times = float(model.context.time) + step * np.arange(N + 1)
    contacts = {}
    if discrete and cat["p"].shape[-2]:
        # step k's contacts drawn at sample k (their configuration); the last sample repeats
        pad = {k: (cat[k][0] if B > 1 else cat[k]) for k in ("p", "f", "a")}
        pad = {k: np.concatenate([a, a[-1:]]) for k, a in pad.items()}
        contacts = dict(contact_points=pad["p"], contact_forces=pad["f"], contact_mask=pad["a"])
    return X, times, contacts


def serve(model, x0, cat, N, step, discrete, B, wait=None):
    """Plays the run (env 0) in a live meshcat viewer and keeps serving it until Ctrl-C or
    SIGTERM (or until ``wait()`` returns, for tests). Prints the viewer's address.

    The two signals get their own handler while serving, whatever the process inherited: a
    Python started with SIGINT ignored (a background job of a script) never raises
    KeyboardInterrupt, and the suite once saw the loop still sleeping 90 s after a SIGINT."""
    import signal
    import sys
    import threading

    from jaxbody.visualization import (  # lazy: the optional viz extra (meshcat)
        MeshcatVisualizer,
        StartMeshcat,
    )

    X, times, contacts = _animation(model, x0, cat, N, step, discrete, B)
    vis = StartMeshcat()
    viz = MeshcatVisualizer(model.plant, vis, context=model.context)
    if model.camera is not None:
        viz.SetCameraPose(*model.camera)
    viz.PublishTrajectory(X, times, **contacts)
    print(f"jaxbody simulate: the viewer is at {vis.url()} (Ctrl-C stops it)", flush=True,
          file=sys.stdout)
    stop = threading.Event()
    main = threading.current_thread() is threading.main_thread()  # only it may set handlers
    previous = {sig: signal.signal(sig, lambda *_: stop.set())
                for sig in (signal.SIGINT, signal.SIGTERM)} if main else {}
    try:
        while not stop.is_set() and (wait is None or not wait()):
            stop.wait(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _stop_meshcat(vis)


def _stop_meshcat(vis):
    """Closes the viewer's socket without lingering and stops its server now, rather than
    leaving both to interpreter shutdown (meshcat's atexit hook and pyzmq's context)."""
    window = getattr(vis, "window", None)
    socket = getattr(window, "zmq_socket", None)
    if socket is not None:
        socket.close(linger=0)
    proc = getattr(window, "server_proc", None)
    if proc is not None and proc.poll() is None:
        proc.kill()
        proc.wait()


def write_html(path, model, x0, cat, N, step, discrete, B):
    """The animation (env 0 of a batch); returns the names of the bodies drawn as their
    inertia boxes because they have no geometry to draw."""
    from jaxbody.visualization import export_html  # lazy: the optional viz extra

    X, times, contacts = _animation(model, x0, cat, N, step, discrete, B)
    try:
        export_html(model.plant, X, path, times=times, context=model.context,
                    title=f"jaxbody: {model.name.split(' ')[0]}", camera=model.camera, **contacts)
    except OSError as e:
        raise CliError(f"--html: cannot write {path}: {e.strerror or e}") from None
