"""SDFormat features, one hand-written document each, parsed by pydrake and by jaxbody: the two
plants hold the same model instances, bodies and inertias, frames (index, name, body, model
instance, pose), joints (type, frames, axis, pitch, limits, damping, weld pose, q/v slots),
actuators, springs and geometry (see `tests.parsers.drake_compare`)."""

import pytest

pytest.importorskip("pydrake")

from tests.parsers.drake_compare import compare_plants, jaxbody_plant, pydrake_plant  # noqa: E402
from tests.parsers.sdf_text import AB, AXIS, CASES, joint, link, model  # noqa: E402


@pytest.mark.parametrize("name", sorted(CASES))
def test_feature_matches_pydrake(name):
    dp, sg = pydrake_plant(CASES[name])
    compare_plants(dp, sg, jaxbody_plant(CASES[name]), name)


def test_include_by_package_and_model_uri(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "models").mkdir(parents=True)
    (pkg / "package.xml").write_text("<package><name>pkg</name></package>")
    (pkg / "models" / "arm.sdf").write_text(model(AB + joint("revolute", extra=AXIS)
                                                  + '<frame name="tip" attached_to="b"/>',
                                                  name="arm"))
    (pkg / "models" / "box.sdf").write_text(model(link("lid"), name="box"))
    text = model(link("base") + "<include><uri>package://pkg/models/arm.sdf</uri><name>left"
                 "</name><pose>0 1 0 0 0 0.5</pose></include><include><uri>model://pkg/models/"
                 "arm.sdf</uri><name>right</name><pose relative_to=\"base\">0 -1 0 0 0 0</pose>"
                 "</include><include><uri>package://pkg/models/box.sdf</uri><static>true"
                 "</static></include>" + joint("fixed", "base", "left::a", name="mount"),
                 name="robot")
    packages = {"pkg": pkg}
    dp, sg = pydrake_plant(text, packages=packages)
    compare_plants(dp, sg, jaxbody_plant(text, packages=packages), "include")


def test_link_poses_are_default_free_body_poses():
    """A floating link starts at its SDFormat pose (Drake's parser: SetDefaultFreeBodyPose),
    in a nested model placed by its own pose too; a jointed link is unaffected."""
    import numpy as np

    text = model('<link name="free"><pose>1 2 3 0 0 0.5</pose><inertial><mass>1</mass>'
                 '</inertial></link><model name="inner"><pose>0 0 1 0.3 0 0</pose>'
                 '<link name="nested"><pose>0.5 0 0 0 0.2 0</pose><inertial><mass>2</mass>'
                 '</inertial></link></model>' + AB + joint("revolute", extra=AXIS),
                 name="poses")
    dp, sg = pydrake_plant(text)
    jp = jaxbody_plant(text)
    compare_plants(dp, sg, jp, "link poses")  # default positions included
    X = jp.GetDefaultFreeBodyPose(jp.GetBodyByName("free"))
    np.testing.assert_allclose(np.asarray(X.translation()), [1, 2, 3], atol=1e-15)
    np.testing.assert_allclose(np.asarray(X.rotation().matrix())[:2, :2],
                               [[np.cos(0.5), -np.sin(0.5)], [np.sin(0.5), np.cos(0.5)]],
                               atol=1e-15)
