"""vLLM's and SGLang's tool-call parsers as `toolcalls fuzz --against` callables.

    toolcalls fuzz --format hermes --against bench/fuzz_peers.py:vllm --seconds 120 --out v.jsonl
    toolcalls fuzz --format glm47 --against bench/fuzz_peers.py:sglang_stream --stream

The peers live in their own venv (../shared/peers/setup.sh builds /tmp/peers/venv; PEERS_VENV
moves it), so each (peer, format) runs in one long-lived subprocess of that venv: this file, run
as ``python fuzz_peers.py --serve PEER FORMAT``, answers one JSON line per request with
``peer_parse.py``'s own drivers (the entry points each peer's OpenAI server uses; see its
docstring). Streamed, the deltas come from the fuzzer's chunking, except that a cut inside one
of the format's special tokens is dropped and each special token is a delta of its own: a real
server sends those whole, with their token id.
Not a dependency of the package: bench only.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
from typing import Any

PEERS = os.environ.get("PEERS_DIR_SOURCE", "/work/shared/peers")
VENV = os.environ.get("PEERS_VENV", "/tmp/peers/venv")

_servers: dict[tuple[str, str], subprocess.Popen[str]] = {}


def _server(peer: str, fmt: str) -> subprocess.Popen[str]:
    key = (peer, fmt)
    running = _servers.get(key)
    if running is not None and running.poll() is None:
        return running
    env = {**os.environ, "PEERS_NO_REEXEC": "1"}
    started = subprocess.Popen(
        [os.path.join(VENV, "bin", "python"), os.path.abspath(__file__), "--serve", peer, fmt],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=env, bufsize=1)
    ready = started.stdout.readline() if started.stdout else ""
    if ready.strip() != "ready":
        raise RuntimeError(f"the {peer} server for {fmt} did not start: {ready.strip()!r}")
    _servers[key] = started
    return started


def _ask(peer: str, fmt: str, request: dict[str, Any]) -> list[dict[str, Any]]:
    server = _server(peer, fmt)
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(json.dumps(request) + "\n")
    server.stdin.flush()
    answer = json.loads(server.stdout.readline())
    if answer.get("error", "") and answer["error"].startswith("peer raised"):
        raise RuntimeError(answer["error"])
    return list(answer["calls"])


@atexit.register
def _stop_servers() -> None:
    for server in _servers.values():
        if server.poll() is None:
            server.kill()


def vllm(text: str, *, format: str, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """vLLM's parser of `format` on the whole response (``DelegatingParser.parse``)."""
    return _ask("vllm", format, {"text": text, "tools": tools})


def sglang(text: str, *, format: str, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """SGLang's parser of `format` on the whole response (``parse_non_stream``)."""
    return _ask("sglang", format, {"text": text, "tools": tools})


def vllm_stream(deltas: list[str], *, format: str, tools: list[dict[str, Any]]
                ) -> list[dict[str, Any]]:
    """vLLM's parser of `format` fed the deltas (``parse_delta``)."""
    return _ask("vllm", format, {"deltas": deltas, "tools": tools})


def sglang_stream(deltas: list[str], *, format: str, tools: list[dict[str, Any]]
                  ) -> list[dict[str, Any]]:
    """SGLang's parser of `format` fed the deltas (``parse_stream_chunk``), then the serving
    layer's step for arguments left unstreamed."""
    return _ask("sglang", format, {"deltas": deltas, "tools": tools})


# --- the server side, run in the peers venv -------------------------------------------------

def _whole_specials(deltas: list[str], specials: list[str]) -> list[str]:
    """The deltas with every cut that falls inside a special token removed."""
    text = "".join(deltas)
    inside: set[int] = set()
    for special in specials:
        start = text.find(special)
        while start >= 0:
            inside.update(range(start + 1, start + len(special)))
            start = text.find(special, start + 1)
    merged: list[str] = []
    position = 0
    for delta in deltas:
        if merged and position in inside:
            merged[-1] += delta
        else:
            merged.append(delta)
        position += len(delta)
    return merged


def _serve(peer: str, fmt: str) -> None:
    sys.path.insert(0, PEERS)
    import peer_parse

    answers = os.fdopen(os.dup(1), "w")  # the protocol; whatever the peers print goes to stderr
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    runner = peer_parse.make_peer(peer, fmt)
    specials = peer_parse.FORMATS[peer_parse.canon_format(fmt)]["specials"]
    print("ready", file=answers, flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            context = runner.tools(request.get("tools"))
            if "deltas" in request:
                deltas = _whole_specials(request["deltas"], specials)
                if getattr(runner, "harmony", False):
                    pieces = runner.tokenizer.split("".join(deltas), "4")
                else:  # each special token its own delta, with its id, as a server sends it
                    pieces = [(piece, [runner.tokenizer.piece_id(piece)])
                              for delta in deltas if delta
                              for piece, _ in runner.tokenizer.segment(delta, "chars", len(delta))]
                outcome = runner.stream(pieces, context)
                answer = peer_parse.normalize(outcome.content, outcome.calls)
            else:
                content, calls = runner.parse(request["text"], context)
                answer = peer_parse.normalize(content, calls)
        except Exception as error:  # the peer raised: a finding, reported to the fuzzer
            answer = {"content": None, "calls": [],
                      "error": f"peer raised: {type(error).__name__}: {error}"[:400]}
        print(json.dumps(answer), file=answers, flush=True)


if __name__ == "__main__" and sys.argv[1:2] == ["--serve"]:
    _serve(sys.argv[2], sys.argv[3])
