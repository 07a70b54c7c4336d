"""`cmake --install` puts an importable package (with its models) into the prefix's Python path."""
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import ROOT


def test_install_and_import(tmp_path):
    build = pathlib.Path(os.environ.get("ARTICULA_BUILD_DIR", ROOT / "build"))
    if not (build / "CMakeCache.txt").exists():
        pytest.skip("no build tree")
    subprocess.run(["cmake", "--install", str(build), "--prefix", str(tmp_path), "--component", "Unspecified"],
                   check=True, capture_output=True)
    site = next(tmp_path.glob("lib/python3*/*-packages"))
    code = ("import articula, os; assert os.path.exists(os.path.join(articula.models_dir(), 'ur5.urdf')); "
            "m = articula.load_urdf(os.path.join(articula.models_dir(), 'ur5.urdf')); print(articula.__file__, m.nv)")
    env = dict(os.environ, PYTHONPATH=str(site))
    env.pop("ARTICULA_MODELS_DIR", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(str(site)) and out.stdout.split()[-1] == "6"


def test_docstrings_have_units_and_shapes():
    import articula
    for f in (articula.aba, articula.rnea, articula.crba, articula.constrained_forward_dynamics,
              articula.velocity_jump, articula.Simulator.run, articula.read_log):
        assert f.__doc__ and len(f.__doc__) > 80, f
    assert "(nv,)" in articula.aba.__doc__ and "N·m" in articula.aba.__doc__ and "RBDA" in articula.aba.__doc__
