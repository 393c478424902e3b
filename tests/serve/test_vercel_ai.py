"""The Vercel AI SDK (Node) as a client of the proxy, on its default configuration:
``createOpenAI({baseURL, apiKey})(model)``, which speaks the Responses API, and
``.chat(model)`` (Chat Completions), each with ``generateText`` and ``streamText``, runs a whole
tool loop (`node/tool_loop.mjs`) through the proxy in front of a model server with no tool
calling (prompt mode, Hermes): the model's call alone, or after text and reasoning of its own
(which the SDK, on ``store`` true, sends back by reference: `test_responses_item_reference`).
A call the model broke or the token limit cut is never executed: its text is the answer.

The SDK's packages are pinned in `node/package-lock.json` and installed with ``npm ci`` into
`node/node_modules` (git-ignored) on first use, or when the lock file changed since.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from upstream import FakeUpstream

NODE_DIR = Path(__file__).resolve().parent / "node"
SCRIPT = NODE_DIR / "tool_loop.mjs"
STAMP = NODE_DIR / "node_modules" / ".toolcalls-lock-sha256"
"""The hash of the lock file node_modules was installed from (gone with node_modules)."""
INSTALL_SECONDS = 600
RUN_SECONDS = 120
NODE_MAJOR = 18
"""The oldest Node the pinned AI SDK runs on (its ``engines``); CI has Node 20."""

CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
BEFORE = "Let me check the weather."
THINKING = "<think>Paris: the tool says.</think>\n"
REPLIES = {  # name: (the model's first reply, its turn as the upstream gets it back)
    "call": (CALL, CALL),
    "text_then_call": (f"{BEFORE}\n{CALL}", f"{BEFORE}\n{CALL}"),
    "reasoning_text_then_call": (f"{THINKING}{BEFORE}\n{CALL}", f"{BEFORE}\n{CALL}"),
}
"""The model's first reply: its call alone, after text, or after reasoning and text (the SDK
sends the text and reasoning items back by reference; reasoning is not sent upstream)."""
ANSWER = "It is 21 °C in Paris."
BROKEN = f'{BEFORE}\n<tool_call>\n{{"name": "get_weather", "arguments": {{"city": "Par'
FAULTS = {  # name: (the model's text, the upstream's finish, what the SDK reads as content)
    "broken": (f'{BROKEN}is"</tool_call>', "stop", f'{BEFORE}{BROKEN[len(BEFORE) + 1:]}is"'
               "</tool_call>"),
    "cut": (BROKEN, "length", f"{BEFORE}{BROKEN[len(BEFORE) + 1:]}"),
}
"""A call whose JSON is broken (its arguments never closed), and one the token limit cut;
the SDK gets the text, then the failed call's own text from its opening marker on (as
`test_failed_calls` says)."""
APIS = ["responses", "chat"]
"""``responses``: the SDK's default model factory; ``chat``: ``openai.chat(model)``."""
CALLS = ["generateText", "streamText"]


def _node_modules_current() -> bool:
    lock = hashlib.sha256((NODE_DIR / "package-lock.json").read_bytes()).hexdigest()
    return STAMP.is_file() and STAMP.read_text(encoding="utf-8") == lock


def _install(npm: str) -> None:
    """``npm ci`` from the lock file; the stamp written once it succeeded."""
    done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR,
                          capture_output=True, text=True, timeout=INSTALL_SECONDS, check=False)
    if done.returncode != 0:
        pytest.fail(f"npm ci in {NODE_DIR} failed (the npm registry must be reachable):\n"
                    f"{done.stderr[-2000:]}")
    STAMP.write_text(hashlib.sha256((NODE_DIR / "package-lock.json").read_bytes()).hexdigest(),
                     encoding="utf-8")


def _node_major(node: str) -> int:
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True,
                             timeout=RUN_SECONDS).stdout
    return int(version.strip().lstrip("v").split(".")[0])


@pytest.fixture(scope="session")
def node() -> str:
    """The path of ``node``, the SDK's packages installed beside the script."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("the Vercel AI SDK tests need Node.js 20 or later with npm on PATH "
                    "(install Node.js 20+, e.g. from nodejs.org or your package manager)")
    if _node_major(node) < NODE_MAJOR:
        pytest.skip(f"the Vercel AI SDK needs Node.js {NODE_MAJOR} or later: install Node 20+")
    if not _node_modules_current():
        _install(npm)
    return node


def run_loop(node: str, url: str, api: str, call: str) -> dict[str, Any]:
    """What `tool_loop.mjs` printed: {executions: [{name, args}], text, finishReason, steps,
    error}."""
    done = subprocess.run([node, str(SCRIPT), f"{url}/v1", api, call], cwd=NODE_DIR,
                          capture_output=True, text=True, timeout=RUN_SECONDS, check=False)
    assert done.returncode == 0, done.stderr
    outcome: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return outcome


@pytest.mark.parametrize("reply", REPLIES)
@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("api", APIS)
def test_vercel_ai_runs_a_tool_loop(node: str, start_proxy: Callable[..., str],
                                    upstream: FakeUpstream, api: str, call: str,
                                    reply: str) -> None:
    first, turn = REPLIES[reply]
    upstream.script(first, then=(ANSWER,))
    outcome = run_loop(node, start_proxy(mode="prompt"), api, call)
    assert outcome["error"] is None
    assert outcome["executions"] == [{"name": "get_weather", "args": {"city": "Paris"}}]
    assert outcome["text"] == ANSWER
    assert outcome["steps"] == 2
    assert len(upstream.requests) == 2
    result = upstream.requests[1]["messages"][-1]
    assert result["role"] == "user"
    assert "<tool_response>" in result["content"] and "21 °C in Paris" in result["content"]
    assistant = upstream.requests[1]["messages"][-2]
    assert assistant == {"role": "assistant", "content": turn}


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("api", APIS)
def test_vercel_ai_never_executes_a_failed_call(node: str, start_proxy: Callable[..., str],
                                                upstream: FakeUpstream, api: str, call: str,
                                                fault: str) -> None:
    text, finish, seen = FAULTS[fault]
    upstream.script(text, finish_reason=finish, seed=3)
    outcome = run_loop(node, start_proxy(mode="prompt"), api, call)
    assert outcome["error"] is None
    assert outcome["executions"] == []
    assert outcome["text"] == seen
    assert outcome["finishReason"] == finish
    assert outcome["steps"] == 1 and len(upstream.requests) == 1


@pytest.mark.parametrize("end", ["truncate", "disconnect"])
@pytest.mark.parametrize("api", APIS)
def test_vercel_ai_stream_ended_early_is_an_error(node: str, start_proxy: Callable[..., str],
                                                  upstream: FakeUpstream, api: str,
                                                  end: str) -> None:
    """The upstream's stream stops halfway through a complete-looking call (cleanly, with no
    finish reason, or dropped): the SDK reports the proxy's error and runs nothing."""
    upstream.script(REPLIES["text_then_call"][0], fault=end, seed=3)
    outcome = run_loop(node, start_proxy(mode="prompt"), api, "streamText")
    assert outcome["executions"] == []
    assert outcome["error"] is not None and "upstream" in outcome["error"]
    assert len(upstream.requests) == 1
