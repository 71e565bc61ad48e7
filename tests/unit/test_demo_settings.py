import pytest

from local.demo import demo_settings


def test_the_demo_races_an_output_class_unless_asked_for_power_which_gets_a_class_of_its_own():
    assert (demo_settings({}).class_id, demo_settings({}).metric) == ("demo-class", "output")
    power = demo_settings({"METRIC": "power", "RACERS": "7"})
    assert (power.class_id, power.metric, power.racers) == ("demo-power", "power", 7)
    with pytest.raises(SystemExit, match="output or power"):
        demo_settings({"METRIC": "watts"})
