"""The README's ``ROBOTS=$(python -m jaxbody.cli.robots)``: the example-robot-data robots folder,
or, without that wheel, an error that says how to install it; a model path built from an empty
or failed ``$ROBOTS`` says the same."""

import os

import pytest

from jaxbody.cli import models, robots
from tests.helpers.installed import missing_distributions


@pytest.mark.skipif(bool(missing_distributions(("example-robot-data",))),
                    reason="needs example-robot-data")
def test_prints_the_robots_folder(capsys):
    robots.main()
    folder = capsys.readouterr().out.strip()
    assert os.path.isfile(os.path.join(folder, "go1_description", "urdf", "go1.urdf"))


def test_without_the_wheel_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(robots, "example_robot_data", lambda: None)
    monkeypatch.setattr(models, "example_robot_data", lambda: None)
    with pytest.raises(SystemExit, match="pip install example-robot-data"):
        robots.main()
    for path in ("None/robots/go1_description/urdf/go1.urdf", "/robots/go1_description/urdf/go1.urdf"):
        with pytest.raises(models.CliError, match=r"model file not found: .*; example-robot-data is "
                           r"not installed .*pip install example-robot-data"):
            models.parse(None, path)
    with pytest.raises(models.CliError) as e:
        models.parse(None, "missing.urdf")
    assert str(e.value) == "model file not found: missing.urdf"


@pytest.mark.skipif(bool(missing_distributions(("example-robot-data",))),
                    reason="needs example-robot-data")
def test_actuate_all_lets_hold_stand_a_model_without_actuators():
    """go2's URDF declares no transmissions: --hold alone refuses and names --actuate-all, which
    puts an actuator on each of its 12 leg joints."""
    go2 = os.path.join(models.example_robot_data(), "robots", "go2_description", "urdf",
                       "go2.urdf")
    with pytest.raises(models.CliError, match="add --actuate-all"):
        models.load_model(go2, time_step=1e-3, ground=True, hold=True)
    m = models.load_model(go2, time_step=1e-3, ground=True, hold=True, actuate_all=True)
    assert m.plant.num_actuators() == 12
    assert "added actuators on 12 joints (--actuate-all)" in m.notes
    assert any(n.startswith("PD hold on 12 actuated joints") for n in m.notes)


@pytest.mark.skipif(bool(missing_distributions(("example-robot-data",))),
                    reason="needs example-robot-data")
def test_max_hull_pairs_caps_the_hull_pairs_evaluated():
    """--max-hull-pairs sets ContactQueryOptions.max_hull_pairs_per_group: the panda with
    self-collision runs GJK/EPA on 76 hull pairs a step by default (48 per group), 8 with a cap
    of 4 (two groups), and says so."""
    panda = os.path.join(models.example_robot_data(), "robots", "panda_description", "urdf",
                         "panda.urdf")
    kw = dict(time_step=1e-3, ground=True, fixed_base=True, self_collision=True)
    default = models.load_model(panda, **kw).plant.get_contact_query_cost()
    capped = models.load_model(panda, max_hull_pairs=4, **kw)
    cost = capped.plant.get_contact_query_cost()
    assert (default.gjk_epa_pairs, cost.gjk_epa_pairs) == (76, 8)
    assert cost.candidate_pairs == default.candidate_pairs and cost.culled
    assert "at most 4 mesh-hull pairs evaluated per kind of pair and step (--max-hull-pairs)" \
        in capped.notes
