"""The package as a user installs it: ``pip install ./python`` from the
repository, into a fresh virtual environment, leaves the checkout as it was
(no ``build/``, no ``*.egg-info``: the build backend builds out of tree), and
what it installs is the whole package (the Hermes plugin folder's
``plugin.yaml`` and the ``hermes_agent.plugins`` entry point with it). pip
may fetch the pinned build backend from the network."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO


def git_status() -> list:
    out = subprocess.run(
        ["git", "-C", str(REPO), "status", "--porcelain", "--ignored", "--untracked-files=all", "--", "python"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    # pytest's own cache folder comes and goes with test runs.
    return sorted(l for l in out.stdout.splitlines() if ".pytest_cache" not in l and "__pycache__" not in l)


def test_pip_install_from_the_checkout_leaves_it_clean(tmp_path: Path):
    if shutil.which("git") is None or not (REPO / "python" / "pyproject.toml").is_file():
        pytest.fail(f"{REPO} is not the memdir checkout with git on PATH")
    before = git_status()
    venv = tmp_path / "venv"
    made = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    py = venv / "bin" / "python"
    installed = subprocess.run(
        [str(py), "-m", "pip", "install", "--disable-pip-version-check", "-q", "./python"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    after = git_status()
    assert after == before, f"pip install ./python changed the checkout: {sorted(set(after) - set(before))}"
    assert not (REPO / "python" / "build").exists()
    assert not list((REPO / "python").glob("*.egg-info"))
    check = (
        "import importlib.metadata as m, pathlib, memdir, memdir.hermes.plugin as p\n"
        "assert pathlib.Path(p.__file__).with_name('plugin.yaml').is_file()\n"
        "assert [e.value for e in m.entry_points(group='hermes_agent.plugins') if e.name == 'memdir'] == ['memdir.hermes.plugin']\n"
        "print(memdir.__file__)\n"
    )
    ran = subprocess.run([str(py), "-c", check], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert Path(ran.stdout.strip()).resolve().is_relative_to(venv.resolve())
