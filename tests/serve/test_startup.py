"""What ``toolcalls serve`` says before its first request: the effective configuration in one
block (`toolcalls.serve._startup`), the upstream key only as set or not; and ``--help``
naming how the key is given (``--api-key-env NAME``, the TOML ``api_key``)."""

from __future__ import annotations

import dataclasses
import logging
import re

import pytest

import toolcalls
from toolcalls.cli import main
from toolcalls.serve import ServeConfig
from toolcalls.serve._process import announce
from toolcalls.serve._startup import configuration_block

SECRET = "sk-upstream-secret-1234"


def _rows(block: str) -> dict[str, str]:
    return dict(re.findall(r"^  ([a-z ]+): +(.*)$", block, re.MULTILINE))


def test_the_block_says_every_setting_that_decides_what_happens() -> None:
    config = ServeConfig(upstream="http://10.0.0.2:8080/v1", model_formats={"qwen*": "hermes"},
                         budget=2000, workers=3, stream_calls="whole", port=9000,
                         api_key=SECRET)
    block = configuration_block(config)
    rows = _rows(block)
    assert block.startswith(f"toolcalls {toolcalls.__version__} serve, effective "
                            "configuration:\n")
    assert rows["upstream"] == "http://10.0.0.2:8080/v1"
    assert rows["listening on"] == "127.0.0.1:9000 (3 worker processes)"
    assert rows["mode"] == "auto: prompt for qwen*; repair for other models"
    assert rows["format"].startswith("auto: from the model id")
    assert rows["model formats"] == "qwen*=hermes"
    assert rows["budget"].startswith("2000 tokens")
    assert rows["stream calls"].startswith("whole")
    assert rows["upstream key"].startswith("set: ")
    assert SECRET not in block


@pytest.mark.parametrize("settings,mode", [
    ({}, "auto: repair for every model"),
    ({"format": "glm45"}, "auto: prompt for every model (format glm45 is named)"),
    ({"mode": "repair", "format": "glm45"}, "repair: tools pass through"),
    ({"mode": "prompt"}, "prompt: tools go into the system prompt")])
def test_the_mode_says_which_models_get_which(settings, mode: str) -> None:
    rows = _rows(configuration_block(ServeConfig(upstream="http://u/v1", **settings)))
    assert rows["mode"].startswith(mode)
    assert rows["upstream key"].startswith("not set: ")


def test_announce_logs_it_as_one_record(caplog: pytest.LogCaptureFixture) -> None:
    config = ServeConfig(upstream="http://u/v1", api_key=SECRET)
    with caplog.at_level(logging.INFO, logger="toolcalls.serve"):
        announce(config)
    [record] = caplog.records
    assert record.getMessage() == configuration_block(config)
    assert SECRET not in caplog.text


def _help(capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    return " ".join(capsys.readouterr().out.split())  # argparse wraps lines


def test_help_names_the_key_flag_and_the_toml_key(capsys) -> None:
    said = _help(capsys)
    assert "--api-key-env NAME" in said and "TOOLCALLS_SERVE_API_KEY" in said
    assert "api_key" in said and "--config FILE" in said


def test_help_names_every_toml_key(capsys) -> None:
    said = _help(capsys)
    missing = [f.name for f in dataclasses.fields(ServeConfig) if f.name not in said]
    assert missing == []


def test_api_key_env_reads_the_key_from_that_variable(monkeypatch) -> None:
    got: list[ServeConfig] = []
    monkeypatch.setattr("toolcalls.serve._server.serve", got.append)
    monkeypatch.setenv("MY_VLLM_KEY", SECRET)
    assert main(["serve", "--upstream", "http://u/v1", "--api-key-env", "MY_VLLM_KEY"]) == 0
    assert got[0].api_key == SECRET


def test_api_key_env_naming_an_unset_variable_says_so(monkeypatch, capsys) -> None:
    monkeypatch.delenv("NOT_SET_KEY", raising=False)
    assert main(["serve", "--upstream", "http://u/v1", "--api-key-env", "NOT_SET_KEY"]) == 2
    assert "--api-key-env NOT_SET_KEY: the environment has no NOT_SET_KEY" in \
        capsys.readouterr().err
