"""The environments the runtime check starts Spaces in: the Python a Space declares, found on this
machine; a fresh virtual environment with exactly the Space's requirements (cached by what defines it);
the package wheel built from the checkout standing in for the released package."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from huggingface_hub import SpaceCard
from packaging.metadata import parse_email
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from eviscope import DISTRIBUTION
from eviscope.core.errors import EviScopeError
from eviscope.core.layout import cache_root
from eviscope.release.processes import SpaceProblem
from eviscope.release.stage import StagedRepo

HUB_DEFAULT_PYTHON = "3.10"
"""The Python a Space runs on when its card declares no ``python_version`` (Spaces config reference)."""


INSTALL_TIMEOUT_S = 1200

ENVIRONMENT_READY = ".eviscope-ready"
"""Written into a cached environment once its install finished; one without it is rebuilt."""


def default_cache_dir(environ: os._Environ[str] | dict[str, str] = os.environ) -> Path:
    """``$EVISCOPE_CACHE/space-envs``, else ``$XDG_CACHE_HOME/eviscope/space-envs``, else ``~/.cache/…``.

    >>> default_cache_dir({"EVISCOPE_CACHE": "/tmp/c"})
    PosixPath('/tmp/c/space-envs')
    """
    return cache_root(environ) / "space-envs"


def build_wheel(root: Path, out_dir: Path) -> Path:
    """The package of the checkout ``root`` as a wheel in ``out_dir`` (what the Spaces install)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--quiet",
            "--wheel-dir",
            str(out_dir),
            str(root),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    wheels = sorted(out_dir.glob("eviscope-*.whl"))
    if done.returncode != 0 or not wheels:
        raise EviScopeError(f"building the package from {root} failed: {_last_line(done.stderr)}")
    return wheels[-1]


def wheel_metadata(wheel: Path) -> tuple[str, list[str]]:
    """The wheel's ``Requires-Python`` and its ``Requires-Dist`` lines (the cache key holds them)."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        raw, _ = parse_email(archive.read(name))
    return raw.get("requires_python", ""), list(raw.get("requires_dist", []))


def find_python(version: str) -> Path | None:
    """An interpreter of ``version`` (``3.12`` or ``3.12.1``) on this machine: ``pythonX.Y`` on
    ``PATH``, a pyenv version, or one uv manages; None when there is none."""
    major_minor = ".".join(version.split(".")[:2])
    candidates: list[Path] = []
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    if pyenv.is_dir():
        candidates += sorted(pyenv.glob(f"{version}*/bin/python{major_minor}"), reverse=True)
    for found in (shutil.which(f"python{major_minor}"), shutil.which("python3")):
        if found:
            candidates.append(Path(found))
    uv = shutil.which("uv")
    if uv:
        done = subprocess.run([uv, "python", "find", version], capture_output=True, text=True, check=False)
        if done.returncode == 0 and done.stdout.strip():
            candidates.append(Path(done.stdout.strip()))
    for candidate in candidates:
        found = python_version(candidate)
        if found == version or found.startswith(version + "."):
            return candidate
    return None


def python_version(python: Path) -> str:
    try:
        done = subprocess.run(
            [str(python), "-c", "import platform; print(platform.python_version())"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def space_requirements(repo: StagedRepo, card: SpaceCard, wheel: Path) -> tuple[list[str], list[str]]:
    """What the Hub would install for ``repo``: its requirement lines with the package's URL replaced
    by ``wheel``, then the card's Gradio SDK. Also the same lines with the wheel's path left out
    (the cache key)."""
    lines, keyed = [], []
    for line in (repo.folder / "requirements.txt").read_text(encoding="utf-8").splitlines():
        text = re.split(r"(?:^|\s)#", line, maxsplit=1)[0].strip()
        if not text:
            continue
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            lines.append(text)
            keyed.append(text)
            continue
        if canonicalize_name(requirement.name) == DISTRIBUTION:
            extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else ""
            lines.append(f"eviscope{extras} @ {wheel.resolve().as_uri()}")
            keyed.append(f"eviscope{extras} @ LOCAL")
        else:
            lines.append(text)
            keyed.append(text)
    if card.data.get("sdk") == "gradio" and card.data.get("sdk_version"):
        sdk = f"gradio[oauth]=={card.data['sdk_version']}"
        lines.append(sdk)
        keyed.append(sdk)
    return lines, keyed


def environment(
    python: Path, version: str, lines: list[str], keyed: list[str], wheel: Path, cache_dir: Path, log
) -> Path:
    """A virtual environment of ``python`` with ``lines`` installed (cached under ``cache_dir`` by
    ``keyed``, the Python version and the wheel's dependencies), the fresh ``wheel`` reinstalled into it."""
    dependencies = wheel_metadata(wheel)[1]
    key = hashlib.sha256(json.dumps([version, keyed, sorted(dependencies)]).encode()).hexdigest()[:16]
    venv = cache_dir / f"py{version}-{key}"
    pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
    if not (venv / ENVIRONMENT_READY).is_file():
        shutil.rmtree(venv, ignore_errors=True)
        log(f"creating a Python {version} environment for {len(lines)} requirements in {venv}")
        _install([str(python), "-m", "venv", str(venv)], "creating the virtual environment")
        requirements = venv / "requirements.txt"
        requirements.write_text("\n".join(lines) + "\n", encoding="utf-8")
        _install([*pip, "install", "--quiet", "-r", str(requirements)], "pip install -r requirements.txt")
        (venv / ENVIRONMENT_READY).write_text("\n".join(keyed) + "\n", encoding="utf-8")
    else:
        log(f"reusing the Python {version} environment {venv}")
    _install(
        [*pip, "install", "--quiet", "--no-deps", "--force-reinstall", str(wheel)],
        "installing the package built from the checkout",
    )
    return venv


def _install(command: list[str], what: str) -> None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise SpaceProblem(f"requirements.txt: {what} took over {INSTALL_TIMEOUT_S} s") from None
    if done.returncode != 0:
        raise SpaceProblem(f"requirements.txt: {what} failed: {_last_line(done.stderr or done.stdout)}")


def _last_line(text: str) -> str:
    """The last line that says something (pip's error), without its ``ERROR:`` prefix."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("WARNING")]
    return re.sub(r"^ERROR: ", "", lines[-1]) if lines else "no output"
