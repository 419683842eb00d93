"""Property-based robustness of the SDFormat and MJCF readers, as test_urdf_fuzz.py for URDF:
mutate real model files (attribute values and element text, deleted, duplicated or renamed
elements, bad numbers, truncated text) and check that the parser either loads a model with
only finite parameters or raises `ParseError`: never another exception, a hang or a NaN."""

import copy
import os
import warnings
import xml.etree.ElementTree as ET  # test-side only: rewrites trusted, installed files

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jaxbody as jb
from tests.parsers import robot_files
from tests.parsers.mjcf_text import SINK
from tests.parsers.sdf_text import CASES as SDF_CASES
from tests.parsers.test_urdf_fuzz import ATTRIBUTE_VALUES, _assert_finite_model

ET.register_namespace("drake", "http://drake.mit.edu")
MAX_EXAMPLES = 40  # per format
DEADLINE_MS = 10_000  # per example; a parse takes well under a second
SDF_TAGS = ["link", "joint", "frame", "model", "pose", "inertial", "mass", "axis", "xyz", "limit",
            "collision", "visual", "geometry", "box", "plane", "include", "static", "nonsense"]
MJCF_TAGS = ["body", "joint", "freejoint", "geom", "inertial", "default", "motor", "include",
             "compiler", "worldbody", "site", "frame", "nonsense"]


def _sources():
    sources = {}
    for name in ("nested", "frames", "universal", "geometry", "static", "world"):
        sources[f"sdf:{name}"] = ("sdf", SDF_CASES[name])
    drake = robot_files.drake_share_dir()
    for rel in ("examples/acrobot/Acrobot.sdf", "examples/multibody/cart_pole/cart_pole.sdf"):
        if drake is not None and os.path.isfile(os.path.join(drake, rel)):
            with open(os.path.join(drake, rel), encoding="utf-8") as f:
                sources[f"sdf:{os.path.basename(rel)}"] = ("sdf", f.read())
    sources["xml:sink"] = ("xml", SINK)
    try:
        import mujoco

        for rel in ("humanoid/humanoid.xml", "pendula.xml"):
            path = os.path.join(os.path.dirname(mujoco.__file__), "mjx", "test_data", rel)
            if os.path.isfile(path):
                with open(path, encoding="utf-8") as f:
                    sources[f"xml:{os.path.basename(rel)}"] = ("xml", f.read())
    except ImportError:
        pass
    return sources


def _tree(text):
    text = text.split("?>", 1)[-1] if text.lstrip().startswith("<?xml") else text
    if "drake:" in text and "xmlns:drake" not in text:  # ElementTree needs the prefix declared
        text = text.replace("<sdf ", '<sdf xmlns:drake="http://drake.mit.edu" ', 1)
    return ET.fromstring(text)


SOURCES = _sources()
TREES = {name: _tree(text) for name, (_, text) in SOURCES.items()}


@st.composite
def mutated_documents(draw, kind):
    name = draw(st.sampled_from(sorted(n for n in SOURCES if n.startswith(kind))))
    root = copy.deepcopy(TREES[name])
    tags = SDF_TAGS if kind == "sdf" else MJCF_TAGS
    for _ in range(draw(st.integers(1, 3))):
        parents = {child: parent for parent in root.iter() for child in parent}
        el = draw(st.sampled_from(list(root.iter())))
        op = draw(st.sampled_from(["set", "delete_attribute", "delete", "duplicate", "rename",
                                   "text", "text"]))
        if op == "set":
            el.set(draw(st.sampled_from(sorted(el.attrib) or ["name"])), draw(ATTRIBUTE_VALUES))
        elif op == "delete_attribute" and el.attrib:
            del el.attrib[draw(st.sampled_from(sorted(el.attrib)))]
        elif op == "delete" and el in parents:
            parents[el].remove(el)
        elif op == "duplicate" and el in parents:
            parents[el].append(copy.deepcopy(el))
        elif op == "rename":
            el.tag = draw(st.sampled_from(tags))
        elif op == "text":
            el.text = draw(ATTRIBUTE_VALUES)
    text = ET.tostring(root, encoding="unicode")
    if draw(st.integers(0, 4)) == 0:
        text = text[:draw(st.integers(0, len(text)))]
    return kind, text


def _parse(kind, text):
    """A finalized-ready plant with ``text`` added (ParseWarnings silenced), or ParseError."""
    plant = jb.MultibodyPlant(0.0)
    parser = jb.Parser(plant)
    robot_files.add_packages(parser.package_map())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jb.ParseWarning)
        parser.AddModelsFromString(text, kind)
    return plant


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_unmutated_sources_load(name):
    _assert_finite_model(_parse(*SOURCES[name]))


def _check(doc):
    kind, text = doc
    try:
        plant = _parse(kind, text)
    except jb.ParseError:
        return
    _assert_finite_model(plant)
    for j in plant._joints:
        assert np.all(np.isfinite(np.asarray(j.default_positions()))), j.name()


FUZZ = settings(max_examples=MAX_EXAMPLES, deadline=DEADLINE_MS, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(mutated_documents("sdf"))
def test_mutated_sdf_loads_or_raises_parse_error(doc):
    _check(doc)


@FUZZ
@given(mutated_documents("xml"))
def test_mutated_mjcf_loads_or_raises_parse_error(doc):
    _check(doc)
