"""Small URDF documents for the parser tests, and `load`, which parses one into a plant."""

import warnings

import jaxbody as jb

UNIT_BOX = ('<inertial><mass value="{m}"/><inertia ixx="{i}" iyy="{i}" izz="{i}" ixy="0" '
            'ixz="0" iyz="0"/></inertial>')


def link(name, mass=1.0, inertia=0.1, extra=""):
    return f'<link name="{name}">{UNIT_BOX.format(m=mass, i=inertia)}{extra}</link>'


def robot(body, name="r"):
    return f'<?xml version="1.0"?>\n<robot name="{name}" xmlns:drake="http://drake.mit.edu">\n{body}\n</robot>'


def load(text, plant=None, finalize=True, parser_setup=None):
    """(plant, instances, warnings) after parsing ``text``."""
    plant = plant or jb.MultibodyPlant(0.0)
    parser = jb.Parser(plant)
    if parser_setup:
        parser_setup(parser)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        instances = parser.AddModelsFromString(text, "urdf")
    if finalize:
        plant.Finalize()
    return plant, instances, [str(w.message) for w in caught if w.category is jb.ParseWarning]
