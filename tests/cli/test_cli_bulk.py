"""``toolcalls parse --jsonl IN --out OUT``: rows parsed in bulk equal per-row parses, in either
output, with one worker or two; a run killed mid-way resumes to the same output; bad rows are
rows with an error; stdin, gzip, zstd and provider logs; memory flat in the input's size."""

from __future__ import annotations

import gzip
import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from corpus import load_cases

import toolcalls
from toolcalls.cli import _bulk_arrow
from toolcalls.cli._bulk_parts import Parts
from toolcalls.cli._main import main

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
COMMAND = [sys.executable, "-P", "-m", "toolcalls"]
CORPUS_FORMATS = ("hermes", "qwen3_coder", "kimi_k2", "glm47", "mistral")


def corpus_rows() -> list[dict[str, Any]]:
    """Real outputs of several formats, each with its format, as one log holds them."""
    rows = []
    for name in CORPUS_FORMATS:
        rows += [{"id": case.row["id"], "format": name, "text": case.text}
                 for case in load_cases([name])]
    return rows


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def expected_row(number: int, text: str, fmt: str) -> dict[str, Any]:
    result = toolcalls.parse(text, fmt)
    return {"row": number, **result.model_dump(
        mode="json", include={"format", "content", "reasoning", "calls", "incomplete", "issues",
                              "provider", "finish_reason", "usage"}), "error": None}


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def run(cwd: Path, *argv: str | Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*COMMAND, *map(str, argv)], capture_output=True, text=True, cwd=cwd,
                          timeout=300, stdin=subprocess.DEVNULL)
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.mark.parametrize("fmt", CORPUS_FORMATS)
def test_jsonl_output_equals_parse_row_by_row_on_the_corpus(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    rows = [row for row in corpus_rows() if row["format"] == fmt]
    source = write_jsonl(tmp_path / "in.jsonl", rows)
    assert main(["parse", "--jsonl", str(source), "--text-field", "text", "-f", fmt,
                 "--keep", "id", "--out", str(tmp_path / "out.jsonl"), "--batch-rows", "7"]) == 0
    printed = read_jsonl(tmp_path / "out.jsonl")
    assert [row.pop("id") for row in printed] == [row["id"] for row in rows]
    assert printed == [expected_row(n, row["text"], fmt) for n, row in enumerate(rows, 1)]
    assert f"toolcalls: {len(rows):,} rows parsed (0 could not be read)" in capsys.readouterr().err


def test_parquet_output_equals_the_jsonl_one_and_parse_array(tmp_path: Path) -> None:
    rows = corpus_rows()
    source = write_jsonl(tmp_path / "in.jsonl", rows)
    for out in ("out.parquet", "out.jsonl"):
        assert main(["parse", "--jsonl", str(source), "--text-field", "text", "--out",
                     str(tmp_path / out), "--batch-rows", "50"]) == 0
    table = pq.read_table(tmp_path / "out.parquet")
    assert pq.ParquetFile(tmp_path / "out.parquet").num_row_groups == -(-len(rows) // 50)
    as_json = read_jsonl(tmp_path / "out.jsonl")
    assert table.column("row").to_pylist() == [row["row"] for row in as_json]
    assert table.column("content").to_pylist() == [row["content"] for row in as_json]
    names = [[call["name"] for call in calls] for calls in table.column("calls").to_pylist()]
    assert names == [[call["name"] for call in row["calls"]] for row in as_json]
    arguments = [[json.loads(call["arguments"]) for call in calls]
                 for calls in table.column("calls").to_pylist()]
    assert arguments == [[call["arguments"] for call in row["calls"]] for row in as_json]
    from toolcalls.arrow import parse_array

    direct = parse_array([row["text"] for row in rows], "auto")
    assert table.column("issues").to_pylist() == direct.field("issues").to_pylist()


def test_two_workers_write_what_one_writes(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", corpus_rows() * 3)
    for workers in ("1", "2"):
        done = run(tmp_path, "parse", "--jsonl", source, "--text-field", "text", "--out",
                   f"w{workers}.parquet", "--workers", workers, "--batch-rows", "40")
        assert done.returncode == 0, done.stderr
    assert pq.read_table(tmp_path / "w2.parquet").equals(pq.read_table(tmp_path / "w1.parquet"))


def test_bad_rows_are_rows_with_an_error_and_the_run_goes_on(tmp_path: Path) -> None:
    lines = [json.dumps({"text": '<tool_call>{"name": "f", "arguments": {}}</tool_call>'}),
             "not json", "", json.dumps({"other": 1}), json.dumps({"text": 7}),
             json.dumps({"text": None}), json.dumps([1, 2]), "[" * 100_000,
             json.dumps({"text": "\ud800 <tool_call>"})]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for out in ("out.jsonl", "out.parquet"):
        done = run(tmp_path, "parse", "--jsonl", "in.jsonl", "--text-field", "text", "-f",
                   "hermes", "--out", out)
        assert done.returncode == 0, done.stderr
        assert "9 rows parsed (6 could not be read), 1 call," in done.stderr
    errors = [row["error"] for row in read_jsonl(tmp_path / "out.jsonl")]
    assert errors[0] is None and errors[5] is None and errors[8] is None
    assert errors[1].startswith("not a JSON row") and errors[2] == "an empty line"
    assert errors[3] == "no field text" and errors[4] == "the text to parse is a string, not int"
    assert errors[6] == "no field text" and "nested too deep" in errors[7]
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.column("error").to_pylist() == errors
    assert table.column("row").to_pylist() == list(range(1, 10))
    assert table.column("format").to_pylist()[5] is None  # a null text: a null result


def test_stdin_gzip_and_paths_into_rows(tmp_path: Path) -> None:
    rows = [{"messages": [{"content": "hi"}, {"content": f'<tool_call>{{"name": "f{n}", '
                                                        '"arguments": {}}</tool_call>'}]}
            for n in range(5)]
    text = "".join(json.dumps(row) + "\n" for row in rows)
    (tmp_path / "in.jsonl.gz").write_bytes(gzip.compress(text.encode()))
    piped = subprocess.run([*COMMAND, "parse", "--jsonl", "-", "--text-field",
                            "messages.-1.content", "-f", "hermes", "--out", "a.jsonl"],
                           input=text, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert piped.returncode == 0, piped.stderr
    zipped = run(tmp_path, "parse", "--jsonl", "in.jsonl.gz", "--text-field",
                 "messages.-1.content", "-f", "hermes", "--out", "b.jsonl")
    assert zipped.returncode == 0, zipped.stderr
    first = read_jsonl(tmp_path / "a.jsonl")
    assert first == read_jsonl(tmp_path / "b.jsonl")
    assert [row["calls"][0]["name"] for row in first] == [f"f{n}" for n in range(5)]


def test_zstd_input_reads_across_frames_as_the_plain_file_reads(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    rows = [{"text": f'<tool_call>{{"name": "f{n}", "arguments": {{}}}}</tool_call>'}
            for n in range(7)]
    plain = write_jsonl(tmp_path / "in.jsonl", rows).read_bytes()
    lines = plain.splitlines(keepends=True)
    squeeze = zstandard.ZstdCompressor()  # two frames, as `cat a.zst b.zst` makes
    (tmp_path / "in.jsonl.zst").write_bytes(squeeze.compress(b"".join(lines[:3]))
                                            + squeeze.compress(b"".join(lines[3:])))
    for name, out in (("in.jsonl", "a.jsonl"), ("in.jsonl.zst", "b.jsonl")):
        done = run(tmp_path, "parse", "--jsonl", name, "--text-field", "text", "-f", "hermes",
                   "--out", out, "--batch-rows", "2")
        assert done.returncode == 0, done.stderr
    assert read_jsonl(tmp_path / "b.jsonl") == read_jsonl(tmp_path / "a.jsonl")
    assert [row["calls"][0]["name"] for row in read_jsonl(tmp_path / "b.jsonl")] == [
        f"f{n}" for n in range(7)]
    (tmp_path / "bad.jsonl.zst").write_bytes(plain)  # named .zst, not Zstandard
    done = run(tmp_path, "parse", "--jsonl", "bad.jsonl.zst", "--text-field", "text",
               "--out", "c.jsonl")
    assert done.returncode == 2 and "cannot read --jsonl 'bad.jsonl.zst'" in done.stderr
    assert done.stderr.count("\n") == 1


def test_zstd_without_zstandard_says_what_to_install(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "in.jsonl.zst").write_bytes(b"")
    monkeypatch.setitem(sys.modules, "zstandard", None)  # as if not installed
    assert main(["parse", "--jsonl", str(tmp_path / "in.jsonl.zst"), "--text-field", "text",
                 "--out", str(tmp_path / "out.jsonl")]) == 2
    assert "pip install zstandard" in capsys.readouterr().err


def test_provider_logs_read_as_read_response_reads_them(tmp_path: Path) -> None:
    folder = FIXTURES / "providers" / "openai_chat"
    saved = sorted(folder.glob("*.json"))
    rows = [{"file": path.name, "response": json.loads(path.read_text(encoding="utf-8"))}
            for path in saved]
    write_jsonl(tmp_path / "log.jsonl", rows)
    done = run(tmp_path, "parse", "--jsonl", "log.jsonl", "--text-field", "response",
               "--provider", "openai", "--keep", "file", "--out", "calls.jsonl")
    assert done.returncode == 0, done.stderr
    printed = read_jsonl(tmp_path / "calls.jsonl")
    for row, path in zip(printed, saved, strict=True):
        result = toolcalls.read_response(path.read_text(encoding="utf-8"), "openai",
                                         format="auto")  # parse's default, as `read`'s
        assert row["file"] == path.name
        assert row["calls"] == [call.model_dump(mode="json") for call in result.calls]
        assert row["finish_reason"] == result.finish_reason


def _big_input(path: Path, rows: int) -> Path:
    line = json.dumps({"text": 'Sure. <tool_call>{"name": "get_weather", "arguments": '
                               '{"city": "Paris"}}</tool_call>'}) + "\n"
    path.write_text(line * rows, encoding="utf-8")
    return path


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT], ids=["kill", "ctrl-c"])
def test_a_run_stopped_mid_way_resumes_to_the_output_of_one_that_ran_through(
        tmp_path: Path, stop: signal.Signals) -> None:
    _big_input(tmp_path / "in.jsonl", 60_000)
    argv = ["parse", "--jsonl", "in.jsonl", "--text-field", "text", "-f", "hermes",
            "--batch-rows", "2000", "--out"]
    assert run(tmp_path, *argv, "whole.parquet").returncode == 0
    process = subprocess.Popen([*COMMAND, *argv, "cut.parquet"], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, preexec_fn=lambda: signal.signal(
                                   signal.SIGINT, signal.SIG_DFL))
    first = tmp_path / "cut.parquet.parts" / "part-00000000.parquet"
    deadline = time.monotonic() + 120
    while not first.exists():  # the first batch is written: the run is under way
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.01)
    process.send_signal(stop)
    _, err = process.communicate(timeout=120)
    assert not (tmp_path / "cut.parquet").exists(), "the run ended before the signal"
    if stop == signal.SIGINT:
        assert process.returncode == 130 and "Traceback" not in err.decode()
        assert "run the same command with --resume" in err.decode()
        assert not (tmp_path / "cut.parquet.partial").exists()  # a kill leaves it; resume redoes it
    refused = run(tmp_path, *argv, "cut.parquet")
    assert refused.returncode == 2 and "--resume" in refused.stderr
    resumed = run(tmp_path, *argv, "cut.parquet", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "batches from the earlier run kept" in resumed.stderr
    assert pq.read_table(tmp_path / "cut.parquet").equals(pq.read_table(tmp_path /
                                                                         "whole.parquet"))
    assert not (tmp_path / "cut.parquet.parts").exists()


def test_resume_refuses_a_different_run(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "in.jsonl", [{"text": "hi"}])
    (tmp_path / "out.jsonl.parts").mkdir()
    (tmp_path / "out.jsonl.parts" / "job.json").write_text(json.dumps({"batch_rows": 5}))
    done = run(tmp_path, "parse", "--jsonl", "in.jsonl", "--text-field", "text", "--out",
               "out.jsonl", "--resume")
    assert done.returncode == 2 and "differs in batch_rows, format" in done.stderr


def _peak_rss_kb(tmp_path: Path, source: Path) -> int:
    """The command's peak resident memory, in its own process. VmHWM, not ru_maxrss: Linux
    keeps ru_maxrss across exec, so a child would report the test process's size at fork."""
    code = ("import re\nfrom pathlib import Path\nfrom toolcalls.cli._main import main\n"
            f"assert main(['parse', '--jsonl', {str(source)!r}, '--text-field', 'text', "
            "'-f', 'hermes', '--out', 'out.jsonl', '--batch-rows', '2000']) == 0\n"
            "status = Path('/proc/self/status').read_text()\n"
            "print(re.search(r'VmHWM:\\s+(\\d+) kB', status)[1])")
    done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1])


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="VmHWM is Linux's")
def test_memory_stays_flat_in_the_input_size(tmp_path: Path) -> None:
    small = _peak_rss_kb(tmp_path, _big_input(tmp_path / "small.jsonl", 10_000))
    large = _peak_rss_kb(tmp_path, _big_input(tmp_path / "large.jsonl", 100_000))
    # ten times the rows (about 9 MB more input): at most a few MB more (allocator noise)
    assert large < small + 8_000, (small, large)


@pytest.mark.parametrize(("argv", "says"), [
    (["--out", "x.csv"], "name a .parquet or .jsonl file"),
    ([], "--jsonl needs --out"),
    (["--out", "x.jsonl", "--keep", "content"], "--keep content: the output has a column"),
    (["--out", "x.jsonl", "--stream"], "give no FILE, --stream or --template"),
])
def test_bad_options_are_one_line(tmp_path: Path, argv: list[str], says: str) -> None:
    write_jsonl(tmp_path / "in.jsonl", [{"text": "hi"}])
    done = run(tmp_path, "parse", "--jsonl", "in.jsonl", "--text-field", "text", *argv)
    assert done.returncode == 2 and says in done.stderr and done.stderr.count("\n") == 1


def test_parquet_without_pyarrow_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    write_jsonl(tmp_path / "in.jsonl", [{"text": "hi"}])
    monkeypatch.setattr(_bulk_arrow, "_module", lambda name: None)  # as if not installed
    assert main(["parse", "--jsonl", str(tmp_path / "in.jsonl"), "--text-field", "text",
                 "--out", str(tmp_path / "out.parquet")]) == 2
    assert "pip install 'toolcalls[arrow]'" in capsys.readouterr().err
    assert not (tmp_path / "out.parquet.parts").exists()


def test_parts_join_in_order_whatever_order_they_are_written_in(tmp_path: Path) -> None:
    parts = Parts(tmp_path / "out.jsonl", ".jsonl")
    parts.start({"job": 1}, resume=False)
    for index in (2, 0, 1):
        parts.write(index, f"part {index}\n".encode())
    parts.ready(2)
    assert not (tmp_path / "out.jsonl.partial").exists()  # part 0 is not in yet
    parts.ready(0)
    parts.ready(1)
    parts.finish(3)
    assert (tmp_path / "out.jsonl").read_text() == "part 0\npart 1\npart 2\n"
    assert not (tmp_path / "out.jsonl.parts").exists()


def test_finishing_with_a_part_missing_is_an_error_not_a_short_output(tmp_path: Path) -> None:
    parts = Parts(tmp_path / "out.jsonl", ".jsonl")
    parts.start({"job": 1}, resume=False)
    parts.write(0, b"part 0\n")
    parts.ready(0)
    with pytest.raises(RuntimeError, match="1 of 2 parts were not joined"):
        parts.finish(2)
    parts.abandon()
    assert not (tmp_path / "out.jsonl").exists() and not (tmp_path / "out.jsonl.partial").exists()
