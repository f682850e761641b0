"""Packaging (issue 11): the wheel holds every data file Herald opens at run time.

Builds the wheel from a copy of the sources (offline: no build isolation, no index), installs it
with `--no-deps` in a fresh virtual environment whose dependencies (discord.py, Pillow...) come
from this environment's site-packages through a plain .pth line (which does not run this
environment's editable-install hook, so the source tree stays out of sys.path), then runs
`herald rules`, `herald scenarios` and short `herald play` scripts from a directory that is not
the repository. A file missing from `[tool.setuptools.package-data]` fails here, as
`rules_index.toml` did ("has no rules index yet").
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SOURCES = ["pyproject.toml", "README.md", "engine", "bot", "renders"]
BULL_RUN = """# seed: 7
union: play assault-centre
union: move ui1 0404
union: move ui2 0604
union: battle ui1 0607
union: end
"""
EDGEHILL = """# seed: 3
royalist: activate r-centre
royalist: leader astley move 3111 3110 3109
royalist: move r-belasyse 3209
"""


def _run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} -> {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, dict[str, str], Path]:
    """(the fresh environment's bin directory, a clean environment, a working directory)."""
    tmp = tmp_path_factory.mktemp("wheel")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PIP_"))}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    src = tmp / "src"                      # a copy: the build writes build/ and *.egg-info beside it
    src.mkdir()
    for name in SOURCES:
        path = REPO / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(path, src / name)
    dist = tmp / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
          "-w", str(dist), str(src)], tmp, env, timeout=120)
    [wheel] = dist.glob("herald-*.whl")

    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp, env)
    py = venv / "bin" / "python"
    purelib = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                        tmp, env).stdout.strip())
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (purelib / "_herald_test_dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-index", "-q",
          str(wheel)], tmp, env, timeout=120)
    work = tmp / "run"
    work.mkdir()
    return venv / "bin", env, work


def test_the_installed_wheel_is_what_runs(installed):
    bin_dir, env, work = installed
    out = _run([str(bin_dir / "python"), "-c",
                "import bot, engine, renders; print(bot.__file__); print(engine.__file__); print(renders.__file__)"],
               work, env).stdout.split()
    venv = bin_dir.parent.resolve()
    assert all(Path(p).resolve().is_relative_to(venv) for p in out), out     # not the source tree


def test_herald_rules_from_the_wheel(installed):
    bin_dir, env, work = installed
    out = _run([str(bin_dir / "herald"), "rules", "tacw", "10.4"], work, env).stdout
    assert "10.4" in out and "no rules index" not in out
    assert "D" in out or "decision" in out.lower() or len(out.splitlines()) > 3
    out = _run([str(bin_dir / "herald"), "rules", "battlecry", "retreat"], work, env).stdout
    assert "4.6" in out


def test_herald_scenarios_from_the_wheel(installed):
    bin_dir, env, work = installed
    out = _run([str(bin_dir / "herald"), "scenarios"], work, env).stdout
    for rid, sid in [("battlecry", "first-bull-run"), ("battlecry", "shiloh"), ("tacw", "edgehill"),
                     ("tacw", "naseby"), ("tacw", "second-newbury")]:
        assert any(line.split()[:2] == [rid, sid] for line in out.splitlines()), (rid, sid)
    assert "--option" in out


@pytest.mark.parametrize("ruleset, scenario, script", [("battlecry", "first-bull-run", BULL_RUN),
                                                       ("tacw", "edgehill", EDGEHILL)])
def test_herald_play_from_the_wheel(installed, ruleset, scenario, script):
    bin_dir, env, work = installed
    path = work / f"{scenario}.txt"
    path.write_text(script)
    out = _run([str(bin_dir / "herald"), "play", ruleset, scenario, "--script", str(path),
                "--out", str(work / scenario)], work, env).stdout
    assert "refused" not in out
    assert (work / scenario / "000-start.png").stat().st_size > 1000      # the renderer's fonts are there
    assert (work / scenario / "log.json").exists()
