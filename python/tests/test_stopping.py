"""The stopping study from Python (docs/stopping.md): the same CSV bytes as `articula stopping`,
results that do not depend on the thread count, and errors naming the key."""
import os
import subprocess

import pytest

import articula


def test_the_bundled_study_loads_with_its_cases():
    study = articula.load_stopping_study(os.path.join(articula.studies_dir(), "rx130_stopping.yaml"))
    assert study.joints == ["joint_1", "joint_2", "joint_3"]
    cases = articula.stopping_cases(study)
    assert len(cases) == len(study.joints) * len(study.categories) * len(study.speeds) * len(study.payloads) * len(
        study.extensions)
    assert [c.index for c in cases] == list(range(len(cases)))
    assert study.model.nv == 6 and study.rated_payload > 0


def test_one_case_stops_and_the_ideal_lock_is_beside_it():
    study = articula.load_stopping_study(os.path.join(articula.studies_dir(), "rx130_stopping.yaml"))
    case = articula.stopping_cases(study)[-1]  # joint 3, category 1, full speed, payload, extension
    real = articula.run_stopping_case(study, case)
    ideal = articula.run_stopping_case(study, case, ideal=True)
    assert real.ok and ideal.ok, (real.message, ideal.message)
    assert real.stop_time > 0 and real.distance_deg > 0 and real.path_mm > 0 and real.peak_torque > 0
    assert real.distance_deg != ideal.distance_deg


def test_python_sweep_gives_the_cli_bytes_on_any_thread_count(tmp_path):
    study = articula.load_stopping_study(os.path.join(articula.studies_dir(), "rx130_stopping.yaml"))
    one = articula.run_stopping_sweep(study, jobs=1)
    _, two = articula.stopping(study, jobs=2)
    assert articula.stopping_csv(study, one) == articula.stopping_csv(study, two)
    cli = os.environ.get("ARTICULA_CLI")
    if not cli:
        pytest.skip("ARTICULA_CLI not set (run through CTest)")
    out = tmp_path / "cli"
    subprocess.run([cli, "stopping", study.file, "-o", str(out), "-q", "-j", "2"], check=True, capture_output=True)
    assert (out / "stopping.csv").read_text(encoding="utf-8") == articula.stopping_csv(study, one)
    assert (out / "stopping.json").read_text(encoding="utf-8") == articula.stopping_json(study, one)


def test_samples_spread_around_the_nominal_and_repeat_with_the_seed():
    study = articula.load_stopping_study(os.path.join(articula.studies_dir(), "rx130_stopping.yaml"))
    cases = articula.stopping_cases(study)
    assert len(cases) > 0
    _, a = articula.stopping(study, samples=3, seed=7, jobs=2)
    _, b = articula.stopping(study, samples=3, seed=7, jobs=1)
    assert articula.stopping_csv(study, a) == articula.stopping_csv(study, b)
    r = a[0]
    assert r.samples == 3 and r.failed_samples == 0
    assert r.time["p50"] <= r.time["p95"] <= r.time["p99"] <= r.time["worst"]


def test_bad_input_names_the_key(tmp_path):
    path = tmp_path / "bad.yaml"
    src = open(os.path.join(articula.studies_dir(), "rx130_stopping.yaml"), encoding="utf-8").read()
    model = os.path.join(articula.models_dir(), "rx130_standin.urdf")
    path.write_text(src.replace("../models/rx130_standin.urdf", model).replace("speeds: [0.33", "speeds: [1.5"),
                    encoding="utf-8")
    with pytest.raises(articula.ScenarioError) as e:
        articula.load_stopping_study(str(path))
    assert "speeds" in str(e.value)
    with pytest.raises(articula.ArgumentError, match="jobs"):
        articula.run_stopping_sweep(articula.load_stopping_study(
            os.path.join(articula.studies_dir(), "rx130_stopping.yaml")), jobs=0)
