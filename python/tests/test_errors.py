"""Wrong shapes, wrong types, unknown names and a Data of another model raise, never crash."""
import numpy as np
import pytest

import articula
from conftest import MODELS


def test_wrong_shapes_name_argument_and_shape(ur5):
    d = articula.Data(ur5)
    with pytest.raises(ValueError, match=r"argument 'v' has shape \(5,\), expected \(6,\)"):
        articula.aba(ur5, d, np.zeros(6), np.zeros(5), np.zeros(6))
    with pytest.raises(articula.ArgumentError, match="f_ext"):
        articula.rnea(ur5, d, np.zeros(6), np.zeros(6), np.zeros(6), f_ext=np.zeros((2, 6)))
    with pytest.raises(ValueError, match="J"):
        articula.velocity_jump(ur5, d, None, np.zeros((1, 4)), np.zeros(6))


def test_wrong_types(ur5):
    d = articula.Data(ur5)
    with pytest.raises(TypeError):
        articula.aba(ur5, d, "q", np.zeros(6), np.zeros(6))
    with pytest.raises(TypeError):
        articula.aba(ur5, "data", np.zeros(6), np.zeros(6), np.zeros(6))
    assert articula.aba(ur5, d, [0] * 6, (0,) * 6, np.zeros(6, dtype=np.int32)).dtype == np.float64


def test_unknown_names(ur5):
    with pytest.raises(articula.ArgumentError, match="nope"):
        ur5.joint_id("nope")
    d = articula.Data(ur5)
    with pytest.raises(articula.ArgumentError):
        articula.frame_placement(ur5, d, "nope")
    s = articula.ConstraintSet(ur5)
    with pytest.raises(articula.ArgumentError):
        s.add(articula.FrameConstraint("f", "nope"))
    with pytest.raises(articula.ArgumentError):
        s.enable("nope")


def test_data_of_another_model(ur5):
    other = articula.load_urdf(str(MODELS / "panda.urdf"))
    d = articula.Data(other)
    with pytest.raises(articula.ModelError, match="panda"):
        articula.aba(ur5, d, np.zeros(6), np.zeros(6), np.zeros(6))


def test_scenario_error_has_location(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("model: {urdf: nope.urdf}\nduration: x\n")
    with pytest.raises(articula.ScenarioError) as e:
        articula.load_scenario(str(bad))
    assert str(bad) in str(e.value) and e.value.line >= 1
