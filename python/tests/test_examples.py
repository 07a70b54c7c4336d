"""Every example of examples/python/ runs and does what it says."""
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT

EXAMPLES = ROOT / "examples" / "python"
sys.path.insert(0, str(EXAMPLES))


def test_estop_plot(tmp_path):
    out = tmp_path / "estop.png"
    r = subprocess.run([sys.executable, str(EXAMPLES / "estop_plot.py"), str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 10000 and out.read_bytes()[:4] == b"\x89PNG"
    assert "consistent" in r.stdout and "naive" in r.stdout


def test_solo12_gym():
    import solo12_gym
    q = solo12_gym.main(steps=20)
    assert 0.15 < q[2] < 0.3  # still standing after 0.2 s of Python PD at 1 kHz


def test_custom_constraint():
    import custom_constraint
    jump = custom_constraint.main()
    assert jump.ok() and jump.kinetic_after < jump.kinetic_before
    assert jump.constraint_residual < 1e-10
