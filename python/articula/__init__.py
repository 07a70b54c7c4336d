"""articula: rigid-body dynamics for robots whose constraints switch on and off.

The C++ library (``include/articula/articula.hpp``) from Python, with NumPy arrays:
models and their ``Data``, kinematics, Jacobians, ``rnea`` / ``crba`` / ``aba``, energies, every
constraint type (``CallbackConstraint`` in Python), constrained dynamics, velocity jumps,
``Robot`` / ``Simulator`` with Python controllers and guards, scenario files, the e-stop study,
the stopping study (``stopping``) and ``read_log``. Conventions (docs/python.md):

- arrays are float64; any array-like is accepted as input; a wrong shape raises
  ``ArgumentError`` (a ``ValueError``) naming the argument and the expected shape;
- functions return new arrays (copies); ``Data`` attributes are read-only views into it;
- C++ errors become ``articula.Error`` subclasses with the library's message.
"""
import os as _os

from ._core import *  # noqa: F401,F403
from ._core import _read_log, _default_estop_config, _default_pendulum_config
from . import _core
from ._paths import MODELS_DIR as _MODELS_DIR, SCENARIOS_DIR as _SCENARIOS_DIR, STUDIES_DIR as _STUDIES_DIR

__all__ = [n for n in dir(_core) if not n.startswith("_")] + [
    "read_log", "Log", "models_dir", "scenarios_dir", "studies_dir", "stopping", "default_estop_config",
    "default_pendulum_config"]


def models_dir():
    """The folder of the bundled URDF models ($ARTICULA_MODELS_DIR if set)."""
    return _os.environ.get("ARTICULA_MODELS_DIR") or _MODELS_DIR


def scenarios_dir():
    """The folder of the bundled scenario files."""
    return _SCENARIOS_DIR


def studies_dir():
    """The folder of the bundled study files (rx130_stopping.yaml)."""
    return _os.environ.get("ARTICULA_STUDIES_DIR") or _STUDIES_DIR


def stopping(study=None, samples=0, seed=1, jobs=1):
    """The ISO 10218-1 Annex B stopping sweep, as ``articula stopping`` runs it (docs/stopping.md).

    ``study``: a path or a :class:`StoppingStudy` (default: the bundled RX130 stand-in study).
    ``samples`` > 0 draws brake delays and torques within the study's tolerances (per case from
    ``seed``); ``jobs`` threads run the cases, with the GIL released. Returns ``(study, results)``:
    a list of :class:`StoppingCaseResult`; ``stopping_csv(study, results)`` gives the CLI's CSV.
    """
    if study is None:
        study = _os.path.join(studies_dir(), "rx130_stopping.yaml")
    if not isinstance(study, StoppingStudy):  # noqa: F405 (from _core)
        study = load_stopping_study(_os.fspath(study))  # noqa: F405
    return study, run_stopping_sweep(study, samples, seed, jobs)  # noqa: F405


def default_estop_config(models_dir_=None):
    """The RX130 stand-in e-stop: brakes on joint_1 at 0.05 s, joint_2 at 0.10 s, joint_3 at
    0.15 s, 0.5 s in all, flange frame 'flange' (a BrakeStudyConfig; urdf set)."""
    return _default_estop_config(models_dir_ or models_dir())


def default_pendulum_config(models_dir_=None):
    """The 3R pendulum falling from horizontal: joint2 locked at 0.3 s, joint3 at 0.6 s, 1 s."""
    return _default_pendulum_config(models_dir_ or models_dir())


class Log:
    """A telemetry log read back: ``log["q.joint_1"]`` is a float64 array (one entry per row).

    Attributes: ``columns`` (names; CSV: file order, HDF5: ``t`` first then by name),
    ``status`` / ``message`` / ``t_end`` / ``steps`` (the recorded final state, 'running' while
    the run goes), ``events`` (dict of columns: time, name, actions, kinetic_before, …),
    ``path`` and ``format`` ('csv' or 'hdf5').
    """

    def __init__(self, path, fmt, columns, data, status, events):
        self.path, self.format, self.columns = path, fmt, list(columns)
        self._data = data
        self.status = status.get("status", "running")
        self.message = status.get("message", "")
        self.t_end = status.get("t_end")
        self.steps = status.get("steps")
        self.events = events

    def __getitem__(self, name):
        try:
            return self._data[name]
        except KeyError:
            raise ArgumentError(f"read_log: '{self.path}' has no column '{name}'; columns: "
                                + ", ".join(self.columns)) from None

    def __contains__(self, name):
        return name in self._data

    def __len__(self):
        return len(self._data[self.columns[0]]) if self.columns else 0

    def keys(self):
        return list(self.columns)

    def array(self, columns=None):
        """The (rows, len(columns)) array of the named columns (all by default), a copy."""
        import numpy as np
        return np.column_stack([self[c] for c in (columns or self.columns)])

    def __repr__(self):
        return f"<Log {self.path!r} ({self.format}): {len(self)} rows, {len(self.columns)} columns, {self.status}>"


def read_log(path):
    """Reads a CSV (``run.csv``) or HDF5 (``run.h5``) log into NumPy arrays by column name.

    Returns a :class:`Log`: ``log["t"]``, ``log["q.joint_1"]`` … (float64, one entry per row),
    with the recorded status and the events. CSV: the status comes from ``run.status.yaml`` and
    the events from ``run.events.csv`` next to the file. Raises LogError for a file that cannot
    be read or parsed.
    """
    path = _os.fspath(path)
    fmt, columns, numbers, status, events = _read_log(path)
    data = {c: numbers[:, j].copy() for j, c in enumerate(columns)}
    return Log(path, fmt, columns, data, status, events)
