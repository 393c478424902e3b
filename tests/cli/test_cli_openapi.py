"""``toolcalls openapi``: what an OpenAPI document becomes as tools, and what they cost."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from toolcalls.budget._counts import provider_cost
from toolcalls.cli._main import main
from toolcalls.tools import Tool

FIXTURES = Path(__file__).parents[2] / "fixtures" / "openapi"
LIBRARY = FIXTURES / "library-3.0.json"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["openapi", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def served_document() -> Iterator[str]:
    """The library document at /openapi.json of a server on 127.0.0.1."""
    body = LIBRARY.read_bytes()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            found = self.path == "/openapi.json"
            self.send_response(200 if found else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body if found else b"{}")

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)


def test_openapi_lists_tools_methods_arguments_and_skips(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, str(LIBRARY))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "Library: 4 tools, 1 skipped"
    assert "addBook            POST /shelves/{shelfId}/books  Put a book on the shelf." in lines
    assert "                   arguments: id, query_id" in lines
    assert "  login  POST /login: its request body is not JSON " \
           "(application/x-www-form-urlencoded)" in lines


def test_openapi_shows_token_cost_per_provider(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, str(LIBRARY), "--include", "addBook")
    code, listed, _ = run(capsys, str(LIBRARY), "--include", "addBook", "--json")
    tools = [Tool.model_validate(each) for each in json.loads(listed)]
    expected = ", ".join(f"{provider} {provider_cost(provider)(tools):,}"
                         for provider in ("openai", "anthropic", "gemini"))
    assert code == 0 and [tool.name for tool in tools] == ["addBook"]
    assert f"tokens of the tool list: {expected} (" in out


def test_openapi_json_prints_definitions_that_budget_reads(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, str(LIBRARY), "--json")
    definitions = json.loads(out)
    assert code == 0
    assert [d["name"] for d in definitions] == ["list-books", "addBook", "get_categories_id",
                                                "list-books_2"]
    assert definitions[1]["parameters"]["required"] == ["shelfId", "body"]
    saved = tmp_path / "tools.json"
    saved.write_text(out)
    assert main(["budget", str(saved), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["full_tokens"] > 0


def test_openapi_filters_and_deprecated(capsys: pytest.CaptureFixture[str]) -> None:
    notes = str(FIXTURES / "notes-3.1.json")
    _, plain, _ = run(capsys, notes, "--json")
    _, kept, _ = run(capsys, notes, "--json", "--deprecated", "--exclude", "notes")
    assert [d["name"] for d in json.loads(plain)] == ["searchNotes", "createNote"]
    assert [d["name"] for d in json.loads(kept)] == ["deleteNote"]


def test_openapi_reads_a_document_by_url_on_loopback(
        capsys: pytest.CaptureFixture[str], served_document: str) -> None:
    code, out, _ = run(capsys, f"{served_document}/openapi.json")
    assert code == 0 and out.startswith("Library: 4 tools")


@pytest.mark.parametrize(("make", "message"), [
    (lambda tmp: str(tmp / "missing.json"), "cannot read"),
    (lambda tmp: _written(tmp, "openapi: 3.1.0\n"), "is not JSON"),
    (lambda tmp: _written(tmp, '{"swagger": "2.0"}'), "not an OpenAPI 3.x document"),
    (lambda tmp: _written(tmp, "[1, 2]"), "not an OpenAPI 3.x document"),
    (lambda tmp: "http://example.com/openapi.json", "not on this machine"),
], ids=["no_file", "bad_json", "swagger_2", "not_an_object", "off_loopback"])
def test_openapi_errors_are_one_line_and_non_zero(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, make: object, message: str) -> None:
    code, out, err = run(capsys, make(tmp_path))  # type: ignore[operator]
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("toolcalls: ") and message in err
    assert "Traceback" not in err


def test_openapi_unreachable_url_is_one_line(capsys: pytest.CaptureFixture[str],
                                             served_document: str) -> None:
    code, _, err = run(capsys, f"{served_document}/nothing.json")
    assert code == 2 and err == f"toolcalls: cannot fetch {served_document}/nothing.json: " \
                                "HTTP 404\n"


def _written(tmp_path: Path, text: str) -> str:
    path = tmp_path / "api.json"
    path.write_text(text)
    return str(path)
