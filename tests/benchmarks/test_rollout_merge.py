"""`benchmarks/rollout.py --merge`: a rerun replaces only its own (question, model, batch,
engine) rows; an engine not rerun keeps its rows, from its own run."""

from __future__ import annotations

from benchmarks.rollout import merge


def _row(question, model, engine, t):
    return {"question": question, "model": model, "batch": 1, "engine": engine,
            "run_median_s": t}


def test_merge_replaces_only_the_rerun_rows():
    old = {"created": "a", "models": {"arm7": {"nv": 7}, "quadruped": {"nv": 18}},
           "results": [_row("grad_masses", "arm7", "jaxbody", 1.0),
                       _row("grad_masses", "arm7", "mjx", 2.0),
                       _row("rollout", "arm7", "jaxbody", 3.0)]}
    new = {"created": "b", "settings": {"questions": ["grad_masses"], "models": ["arm7"]},
           "versions": {}, "machine": {}, "models": {"arm7": {"nv": 7, "new": True}},
           "results": [_row("grad_masses", "arm7", "jaxbody", 0.5)]}
    out = merge(old, new)
    times = {(r["question"], r["engine"]): r["run_median_s"] for r in out["results"]}
    assert times == {("grad_masses", "jaxbody"): 0.5, ("grad_masses", "mjx"): 2.0,
                     ("rollout", "jaxbody"): 3.0}
    assert out["models"]["arm7"]["new"] and "quadruped" in out["models"]
    assert "grad_masses on arm7 rerun on b" in out["merged"]
    assert out["reruns"][-1]["created"] == "b" and out["created"] == "a"
