"""Shared fixtures of the Python package's tests (run by CTest: python_test_*)."""
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"
# Every bundled model, with its base (floating models get a free-flyer root_joint).
BUNDLED = [("panda", False), ("pendulum3r", False), ("rx130_standin", False), ("ur5", False),
           ("segway", True), ("solo12", True), ("talos_reduced", True)]


def tool(env, default):
    path = os.environ.get(env, str(ROOT / "build" / default))
    if not os.path.exists(path):
        pytest.skip(f"{path} not built (set {env})")
    return path


@pytest.fixture
def cli():
    return tool("ARTICULA_CLI", "cli/articula")


@pytest.fixture
def reference():
    return tool("ARTICULA_PY_REFERENCE", "python/articula_py_reference")


@pytest.fixture
def ur5():
    import articula
    return articula.load_urdf(str(MODELS / "ur5.urdf"))
