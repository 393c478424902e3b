"""Every code block of the README, of CONTRIBUTING.md and of docs/ runs as it stands: each
Python block in a namespace of its own, from a scratch directory (as a reader who installed the
package runs them), with nothing defined for it, and the packages it imports named in a
``pip install`` on its page; the commands name files and extras that exist. A block that talks
to `toolcalls serve` at its default address runs against a real proxy started as the docs'
command line says, in front of the serve tests' fake upstream answering as the model would.

A transcript (an indented block of ``$ toolcalls ...`` lines, or ``$ echo 'TEXT' | toolcalls
...``, each followed by what it prints, ``...`` standing for lines left out) is run, and must
still print those lines in that order; every figure in the paragraph before it must be in its
commands or what they print, so the numbers in prose come from a command a reader can run."""

from __future__ import annotations

import ast
import importlib.util
import io
import re
import shlex
import sys
import threading
import time
import tomllib
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import toolcalls
from toolcalls.cli._main import main
from toolcalls.parsing import unregister_format

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
TEXTS = {page.relative_to(ROOT).as_posix(): page.read_text(encoding="utf-8") for page in PAGES}


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    code: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def _python_blocks(page: str, text: str) -> list[Block]:
    # Each block with the page's lines before it left blank: a traceback names the page's line.
    return [Block(page, text.count("\n", 0, found.start(1)) + 1,
                  "\n" * text.count("\n", 0, found.start(1)) + found.group(1))
            for found in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M)]


BLOCKS = [block for page, text in TEXTS.items() for block in _python_blocks(page, text)]
FENCES = [fence for text in TEXTS.values() for fence in re.findall(r"^```(\w*)\n", text, re.M)]
COMMANDS = [line.strip() for text in TEXTS.values()
            for line in re.findall(r"^    (python3 .*)$", text, re.M)]
SERVE_URL = "http://127.0.0.1:8000"  # where `toolcalls serve` listens by default
SERVE_COMMANDS = [command for text in TEXTS.values()
                  for command in re.findall(r"^    toolcalls (serve .*)$", text, re.M)]
# what the fake upstream answers to a docs serve block: a Qwen3-Coder call, as text
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
    """The docs' `toolcalls serve` command (its flags, as the CLI parses them) running in
    front of a fake upstream instead of the model server: the proxy's URL."""
    from toolcalls.cli._main import _parser
    from toolcalls.serve import ServeConfig, create_app
    from toolcalls.serve._config import parse_model_formats

    assert len(SERVE_COMMANDS) == 1, "the docs' serve command moved: update this test"
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


def test_the_docs_have_python_blocks_and_only_known_fences() -> None:
    assert len(BLOCKS) >= 20 and len(_python_blocks("README.md", TEXTS["README.md"])) >= 2
    # a block in another language would not be run: say so here when one is added
    assert set(FENCES) <= {"python", ""}, set(FENCES)


@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_docs_block_runs(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                         request: pytest.FixtureRequest) -> None:
    monkeypatch.chdir(tmp_path)  # a reader's directory: no fixtures/, no repository beside it
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf"))  # nothing in ~, nothing
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")                        # fetched,
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")               # nothing reported
    # Ray Data warns about its own deprecated settings from its own modules: not ours to fix
    warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"ray\.")
    code = block.code
    if SERVE_URL in code:
        code = code.replace(SERVE_URL, request.getfixturevalue("readme_proxy"))
    registered = set(toolcalls.list_formats())
    try:
        exec(compile(code, str(ROOT / block.page), "exec"), {"__name__": "__docs__"})  # noqa: S102
    finally:  # a block that registers a format leaves the registry as it found it
        for name in set(toolcalls.list_formats()) - registered:
            unregister_format(name)


def _extras() -> dict[str, list[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project["optional-dependencies"]


def _distribution(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _installable(page_text: str) -> set[str]:
    """What a reader of the page is told to install: core dependencies, and the packages its
    ``pip install`` lines name, an extra of toolcalls standing for its packages."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    named = {_distribution(req) for req in project["dependencies"]}
    for line in re.findall(r"pip install ([^`\n]*)", page_text):
        for word in shlex.split(line.replace("'", " ").replace('"', " ")):
            extras = re.fullmatch(r"toolcalls\[([\w,-]+)\]", word)
            for extra in extras[1].split(",") if extras else []:
                named |= {_distribution(req) for req in _extras()[extra]}
            named.add(_distribution(word))
    return named


def _imported(code: str) -> set[str]:
    tree = ast.parse(code)
    roots = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
             for alias in node.names}
    roots |= {node.module.split(".")[0] for node in ast.walk(tree)
              if isinstance(node, ast.ImportFrom) and node.module and not node.level}
    return roots - set(sys.stdlib_module_names) - {"toolcalls"}


@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_a_block_imports_only_what_its_page_says_to_install(block: Block) -> None:
    missing = _imported(block.code) - _installable(TEXTS[block.page])
    assert not missing, f"{block} imports {sorted(missing)}: say `pip install ...` on its page"


def test_the_docs_commands_name_what_exists() -> None:
    assert COMMANDS, "the docs' commands moved: update this test"
    for command in COMMANDS:
        for script in re.findall(r"\b([\w/]+\.py)\b", command):
            assert (ROOT / script).is_file(), (command, script)
        for extra in re.findall(r"\.\[(\w+)\]", command):
            assert extra in _extras(), (command, extra)


def test_the_readme_holds_both_commands_and_the_first_screen_is_for_users() -> None:
    readme = TEXTS["README.md"]
    assert "HYPOTHESIS_PROFILE=ci .venv-wheel/bin/pytest" in readme  # what .ci/run runs
    assert ".venv/bin/python demo.py" in readme
    first_screen = readme.splitlines()[:40]
    assert "    pip install toolcalls" in first_screen
    assert any(line == "```python" for line in first_screen)


@dataclass(frozen=True)
class Transcript:
    page: str
    line: int
    prose: str
    runs: tuple[tuple[str, tuple[str, ...]], ...]  # (command, the lines it prints, ... = any)

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


# the paragraph before, then the indented block that starts with a command
_TRANSCRIPT = re.compile(r"(?:\A|(?<=\n\n))((?:[^\n]+\n)+)\n"
                         r"((?:    \$ (?:echo .* \| )?toolcalls .*\n)(?:    .*\n)*)")
_PIPED = re.compile(r"echo (.*) \| (toolcalls .*)")


def _transcripts(page: str, text: str) -> list[Transcript]:
    found = []
    for block in _TRANSCRIPT.finditer(text):
        runs: list[tuple[str, list[str]]] = []
        for line in block[2].splitlines():
            line = line[4:]
            if line.startswith("$ "):
                runs.append((line[2:], []))
            else:
                runs[-1][1].append(line)
        found.append(Transcript(page, text.count("\n", 0, block.start(2)) + 1,
                                " ".join(block[1].split()),
                                tuple((command, tuple(lines)) for command, lines in runs)))
    return found


TRANSCRIPTS = [found for page, text in TEXTS.items() for found in _transcripts(page, text)]
FIGURE = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?%?")


def _in_order(shown: tuple[str, ...], printed: list[str]) -> bool:
    at = 0
    for line in shown:
        if line == "...":
            continue
        try:
            at = printed.index(line, at) + 1
        except ValueError:
            return False
    return True


def test_the_docs_have_transcripts() -> None:
    assert {found.page for found in TRANSCRIPTS} >= {"docs/budget.md", "docs/cli.md"}


@pytest.mark.parametrize("transcript", TRANSCRIPTS, ids=str)
def test_a_transcript_prints_what_it_shows_and_backs_its_figures(
        transcript: Transcript, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    seen = []
    for command, shown in transcript.runs:
        piped = _PIPED.fullmatch(command)
        if piped:  # echo's one argument and its newline, as the command's stdin
            (text,) = shlex.split(piped[1])
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(f"{text}\n".encode())))
        argv = shlex.split(piped[2] if piped else command)
        assert argv[0] == "toolcalls", command
        assert main(argv[1:]) == 0, command
        printed = capsys.readouterr().out.splitlines()
        assert _in_order(shown, printed), (command, "\n".join(printed))
        seen += [command, *printed]
    said = " ".join(seen)
    figures = FIGURE.findall(transcript.prose)
    unbacked = [figure for figure in figures
                if figure not in said and figure.replace(",", "") not in said]
    assert not unbacked, f"{transcript}: {unbacked} are in its prose but not printed"
