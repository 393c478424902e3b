"""Every code block of the README runs as it stands: each Python block in a namespace of its
own, from the repository root (as a reader who cloned it runs them), with nothing defined for
it; the commands name files and extras that exist. A block that talks to `toolcalls serve` at
its default address runs against a real proxy started as the README's command line says, in
front of the serve tests' fake upstream answering as the model would."""

from __future__ import annotations

import importlib.util
import re
import shlex
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import toolcalls
from toolcalls.parsing import unregister_format

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
TEXT = README.read_text(encoding="utf-8")
# Each block with the README's lines before it left blank: a traceback names the README's line.
BLOCKS = ["\n" * TEXT.count("\n", 0, found.start(1)) + found.group(1)
          for found in re.finditer(r"^```python\n(.*?)^```", TEXT, re.S | re.M)]
FENCES = re.findall(r"^```(\w*)\n", TEXT, re.M)
COMMANDS = [line.strip() for line in re.findall(r"^    (python3 .*)$", TEXT, re.M)]
SERVE_URL = "http://127.0.0.1:8000"  # where `toolcalls serve` listens by default
SERVE_COMMANDS = re.findall(r"^    \.venv/bin/toolcalls (serve .*)$", TEXT, re.M)
# what the fake upstream answers to a README serve block: a Qwen3-Coder call, as text
SERVE_ANSWER = ("Let me check.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n"
                "</parameter>\n</function>\n</tool_call>")


class _Server:
    """A uvicorn server on 127.0.0.1 (a free port) in a thread, until `stop`."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0,
                                                    log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "did not start"
            time.sleep(0.01)
        self.url = f"http://127.0.0.1:{self.server.servers[0].sockets[0].getsockname()[1]}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def _fake_upstream() -> Any:
    """tests/serve/upstream.py's FakeUpstream (that folder is not on sys.path from here)."""
    if "upstream" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "upstream", ROOT / "tests" / "serve" / "upstream.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["upstream"] = module
        spec.loader.exec_module(module)
    return sys.modules["upstream"].FakeUpstream()


@pytest.fixture(scope="module")
def readme_proxy() -> Iterator[str]:
    """The README's `toolcalls serve` command (its flags, as the CLI parses them) running in
    front of a fake upstream instead of the model server: the proxy's URL."""
    from toolcalls.cli._main import _parser
    from toolcalls.serve import ServeConfig, create_app
    from toolcalls.serve._config import parse_model_formats

    assert len(SERVE_COMMANDS) == 1, "the README's serve command moved: update this test"
    args = _parser().parse_args(shlex.split(SERVE_COMMANDS[0]))
    assert args.upstream.startswith("http://127.0.0.1:8080/") and args.port is None
    fake = _fake_upstream()
    fake.script(SERVE_ANSWER)
    upstream = _Server(fake.app)
    proxy = _Server(create_app(ServeConfig(
        upstream=f"{upstream.url}/v1", mode=args.mode or "auto", format=args.format or "auto",
        model_formats=parse_model_formats(args.model_format or []),
        budget=None if args.budget is None else int(args.budget))))
    yield proxy.url
    proxy.stop()
    upstream.stop()


def test_the_readme_has_python_blocks_and_only_known_fences() -> None:
    assert len(BLOCKS) >= 6
    # a block in another language would not be run: say so here when one is added
    assert set(FENCES) <= {"python", ""}, set(FENCES)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs(block: str, monkeypatch: pytest.MonkeyPatch,
                           request: pytest.FixtureRequest) -> None:
    monkeypatch.chdir(ROOT)
    if SERVE_URL in block:
        block = block.replace(SERVE_URL, request.getfixturevalue("readme_proxy"))
    registered = set(toolcalls.list_formats())
    try:
        exec(compile(block, str(README), "exec"), {"__name__": "__readme__"})  # noqa: S102 - our docs
    finally:  # a block that registers a format leaves the registry as it found it
        for name in set(toolcalls.list_formats()) - registered:
            unregister_format(name)


def test_the_readme_commands_name_what_exists() -> None:
    assert COMMANDS, "the README's commands moved: update this test"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    for command in COMMANDS:
        for script in re.findall(r"\b([\w/]+\.py)\b", command):
            assert (ROOT / script).is_file(), (command, script)
        for extra in re.findall(r"\.\[(\w+)\]", command):
            assert extra in extras, (command, extra)
