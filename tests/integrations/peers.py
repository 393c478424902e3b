"""The real vLLM and SGLang for the integration tests: the peers venv, and runs of the driver.

The venv is ../shared/peers/setup.sh's (vLLM 0.33.0 and SGLang 0.5.23 with a CPU torch, no
serving stack): made once (about two minutes) where it is missing, reused where it is there
(``PEERS_DIR``, default /tmp/peers, as the harness has it). Its Python runs `server_driver.py`
with this checkout's toolcalls source first on its path (toolcalls' source is pure Python; the
wheel's compiled modules are not for that interpreter), and a directory holding what the venv
lacks of toolcalls' own dependencies (lark, mypy_extensions) and toolcalls' entry points as an
installed distribution declares them, which SGLang's plugin loader reads.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import lark
import mypy_extensions
import pytest

ROOT = Path(__file__).resolve().parents[2]
HARNESS = Path(os.environ.get("PEERS_HARNESS", ROOT.parent / "shared" / "peers"))
"""../shared/peers beside the checkout (``PEERS_HARNESS`` for a checkout elsewhere)."""
DRIVER = Path(__file__).resolve().parent / "server_driver.py"
PEERS_DIR = Path(os.environ.get("PEERS_DIR", "/tmp/peers"))
CHUNKS = (1, 4, 13)
"""The stream chunk sizes (characters) every case is also run in."""
MISSING_FROM_VENV = (Path(lark.__file__).parent, Path(mypy_extensions.__file__))


def peers_python() -> Path:
    """The peers venv's Python, the venv made first if it is missing (skips only where the
    harness itself is absent: a checkout without ../shared)."""
    if not (HARNESS / "setup.sh").is_file():
        pytest.skip(f"no peers harness at {HARNESS}: the vLLM and SGLang tests need ../shared")
    python = PEERS_DIR / "venv" / "bin" / "python"
    PEERS_DIR.mkdir(parents=True, exist_ok=True)
    with open(PEERS_DIR.parent / f".{PEERS_DIR.name}.lock", "w") as lock:  # one build at once
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _installed(python):
            subprocess.run(["bash", str(HARNESS / "setup.sh")], check=True, timeout=3600,
                           env={**os.environ, "PEERS_DIR": str(PEERS_DIR)},
                           stdout=subprocess.DEVNULL)
    assert _installed(python), f"{HARNESS / 'setup.sh'} did not install vLLM and SGLang"
    return python


def _installed(python: Path) -> bool:
    return python.is_file() and all(
        any((PEERS_DIR / "venv" / "lib").glob(f"python3*/site-packages/{name}/__init__.py"))
        for name in ("vllm", "sglang"))


def extra_site(directory: Path) -> Path:
    """`directory` made the path entry for what the venv lacks: toolcalls' pure dependencies
    (linked) and its entry points, as ``pip install toolcalls`` would declare them."""
    for source in MISSING_FROM_VENV:
        (directory / source.name).symlink_to(source)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = directory / "toolcalls-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toolcalls\nVersion: 0\n")
    groups = [f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in items.items())
              for group, items in project["entry-points"].items()]
    (info / "entry_points.txt").write_text("\n".join(groups))
    return directory


def vllm_plugin_path() -> str:
    """What the operator's ``$(python -m toolcalls.integrations.vllm --path)`` prints."""
    done = subprocess.run([sys.executable, "-m", "toolcalls.integrations.vllm", "--path"],
                          capture_output=True, text=True, check=True, timeout=120)
    return done.stdout.strip()


def run_driver(python: Path, site: Path, server: str, cases: list[dict[str, Any]],
               work: Path, structural: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """`server_driver.py` on `cases` (each ``{"parser", "text", "tools"}``), in one process."""
    spec = work / f"{server}-cases.json"
    spec.write_text(json.dumps({"chunks": list(CHUNKS), "cases": cases,
                                "structural": list(structural)}), encoding="utf-8")
    arguments = [str(python), str(DRIVER), server, str(spec), str(HARNESS)]
    if server == "vllm":
        arguments.append(vllm_plugin_path())
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site)]),
                   "PEERS_VENV": str(PEERS_DIR / "venv"), "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(arguments, capture_output=True, text=True, timeout=3600,
                          env=environment, cwd=work)
    assert done.returncode == 0, done.stderr[-4000:]
    return dict(json.loads(done.stdout))
