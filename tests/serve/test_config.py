"""`load_config`: flags over environment over the TOML file over the defaults."""

from __future__ import annotations

import pytest

from toolcalls.serve import ServeConfig
from toolcalls.serve._config import ConfigError, load_config


def test_defaults_are_loopback_and_no_bodies() -> None:
    config = load_config({"upstream": "http://u/v1"}, {}, None)
    assert config == ServeConfig(upstream="http://u/v1")
    assert (config.host, config.port, config.log_bodies, config.mode) == (
        "127.0.0.1", 8000, False, "auto")


def test_flags_over_environment_over_file(tmp_path) -> None:
    toml = tmp_path / "serve.toml"
    toml.write_text('[serve]\nupstream = "http://file/v1"\nport = 9000\nbudget = 500\n'
                    'mode = "prompt"\nmodel_formats = { "qwen*" = "hermes" }\n')
    environ = {"TOOLCALLS_SERVE_PORT": "9100", "TOOLCALLS_SERVE_MODE": "repair",
               "TOOLCALLS_SERVE_LOG_BODIES": "true", "OTHER": "x"}
    config = load_config({"port": 9200, "upstream": None}, environ, toml)
    assert (config.upstream, config.port, config.mode, config.budget, config.log_bodies) == (
        "http://file/v1", 9200, "repair", 500, True)
    assert config.model_formats == {"qwen*": "hermes"}


def test_stream_calls_live_by_default_whole_by_flag_environment_or_file(tmp_path) -> None:
    assert load_config({"upstream": "http://u/v1"}, {}, None).stream_calls == "live"
    toml = tmp_path / "serve.toml"
    toml.write_text('upstream = "http://u/v1"\nstream_calls = "whole"\n')
    assert load_config({}, {}, toml).stream_calls == "whole"
    environ = {"TOOLCALLS_SERVE_STREAM_CALLS": "whole"}
    assert load_config({"upstream": "http://u/v1"}, environ, None).stream_calls == "whole"
    assert load_config({"stream_calls": "live"}, environ, toml).stream_calls == "live"


def test_model_formats_from_the_environment() -> None:
    config = load_config({}, {"TOOLCALLS_SERVE_UPSTREAM": "http://u/v1",
                              "TOOLCALLS_SERVE_MODEL_FORMATS": "qwen*=hermes, llama*=xml"}, None)
    assert config.model_formats == {"qwen*": "hermes", "llama*": "xml"}


@pytest.mark.parametrize(("values", "message"), [
    ({}, "upstream: required"),
    ({"upstream": "127.0.0.1:8080"}, "upstream: expected an http(s) URL"),
    ({"upstream": "http://u", "mode": "magic"}, "mode: expected one of"),
    ({"upstream": "http://u", "budget": 0}, "budget: expected a positive"),
    ({"upstream": "http://u", "stream_calls": "bits"}, "stream_calls: expected live or whole"),
    ({"upstream": "http://u", "port": "eighty"}, "port: cannot use 'eighty'"),
    ({"upstream": "http://u", "format": "nope"}, "format: unknown format 'nope'"),
    ({"upstream": "http://u", "model_formats": ["qwen"]}, "expected MODEL=FORMAT"),
    ({"upstream": "http://u", "colour": "red"}, "unknown setting(s): colour"),
])
def test_wrong_settings_are_named(values, message) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_config(values, {}, None)


def test_unreadable_file_is_named(tmp_path) -> None:
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config({"upstream": "http://u"}, {}, tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("upstream = ")
    with pytest.raises(ConfigError, match="bad.toml"):
        load_config({}, {}, bad)
