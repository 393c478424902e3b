"""`load_config`: flags over environment over the TOML file over the defaults."""

from __future__ import annotations

import json
import re

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


def test_stream_calls_whole_by_default_live_by_flag_environment_or_file(tmp_path) -> None:
    assert load_config({"upstream": "http://u/v1"}, {}, None).stream_calls == "whole"
    toml = tmp_path / "serve.toml"
    toml.write_text('upstream = "http://u/v1"\nstream_calls = "live"\n')
    assert load_config({}, {}, toml).stream_calls == "live"
    environ = {"TOOLCALLS_SERVE_STREAM_CALLS": "live"}
    assert load_config({"upstream": "http://u/v1"}, environ, None).stream_calls == "live"
    assert load_config({"stream_calls": "whole"}, environ, toml).stream_calls == "whole"


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
    ({"upstream": "http://u", "port": "eighty"}, "port: expected an integer, got 'eighty'"),
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


BAD_SETTINGS = [
    ("upstream", "http://[::1", "upstream: 'http://[::1' is not a URL"),
    ("upstream", "http://h:99999/v1", "is not a URL (Port out of range"),
    ("upstream", "http://a:b:c/v1", "is not a URL"),
    ("upstream", "http://h:0/v1", "expected a port of 1..65535"),
    ("upstream", "http:///v1", "names no host"),
    ("upstream", "http://exa mple/v1", "holds a space or a control character"),
    ("upstream", "http://h/v1?key=1", "without ?query or #fragment"),
    ("upstream", "ftp://h/v1", "expected an http(s) URL"),
    ("timeout", "nan", "timeout: expected a positive number of seconds, got nan"),
    ("timeout", "inf", "timeout: expected a positive number of seconds, got inf"),
    ("timeout", "-1", "timeout: expected a positive number"),
    ("timeout", "0", "timeout: expected a positive number"),
    ("timeout", "soon", "timeout: expected a number of seconds, got 'soon'"),
    ("max_body_bytes", "0", "max_body_bytes: expected a positive number of bytes, got 0"),
    ("max_body_bytes", "1e6", "max_body_bytes: expected an integer, got '1e6'"),
    ("budget", "-5", "budget: expected a positive number of tokens, got -5"),
    ("budget", "nan", "budget: expected an integer, got 'nan'"),
    ("port", "65536", "port: expected 0..65535, got 65536"),
    ("port", "-1", "port: expected 0..65535, got -1"),
    ("port", "80.5", "port: expected an integer, got '80.5'"),
    ("host", "", "host: expected an address to listen on"),
    ("host", "local host", "host: expected an address to listen on"),
    ("model_formats", "qwen[3*=hermes", "model_formats: 'qwen[3*' has an unclosed ["),
    ("log_bodies", "maybe", "log_bodies: expected true or false, got 'maybe'"),
]


@pytest.mark.parametrize(("name", "value", "message"), BAD_SETTINGS)
def test_a_bad_value_is_named_from_flag_environment_and_file(name, value, message,
                                                             tmp_path) -> None:
    def refused(argv: dict, environ: dict, toml=None) -> str:
        with pytest.raises(ConfigError) as raised:
            load_config({"upstream": "http://u/v1", **argv}, environ, toml)
        return str(raised.value)

    pattern = re.escape(message)
    assert re.search(pattern, refused({name: value}, {}))
    environ = {f"TOOLCALLS_SERVE_{name.upper()}": value}
    assert re.search(pattern, refused({"upstream": None} if name == "upstream" else {}, environ))
    toml = tmp_path / "serve.toml"
    toml.write_text(f"{name} = {json.dumps(value)}\n")
    assert re.search(pattern, refused({}, {}, toml) if name != "upstream" else
                    _refused_from_file(toml))


def _refused_from_file(toml) -> str:
    with pytest.raises(ConfigError) as raised:
        load_config({}, {}, toml)
    return str(raised.value)


@pytest.mark.parametrize(("toml", "message"), [
    ("timeout = nan", "timeout: expected a positive number of seconds, got nan"),
    ("timeout = inf", "timeout: expected a positive number of seconds, got inf"),
    ("timeout = true", "timeout: expected a number of seconds, got True"),
    ("port = 80.0", "port: expected an integer, got 80.0"),
    ("port = true", "port: expected an integer, got True"),
    ("workers = [2]", "workers: expected an integer, got [2]"),
    ("budget = 1.5", "budget: expected an integer, got 1.5"),
    ("log_bodies = 1", "log_bodies: expected true or false, got 1"),
    ("format = 5", "format: expected a string, got 5"),
    ("mode = []", "mode: expected a string, got []"),
    ("api_key = 5", "api_key: expected a string, got 5"),
    ('model_formats = { "qwen*" = 5 }', "model_formats: expected MODEL = FORMAT names"),
    ('model_formats = [5]', "model_formats: expected MODEL = FORMAT names"),
    ('upstream = ["http://u/v1"]', "upstream: expected a string"),
])
def test_a_value_of_the_wrong_type_in_the_file_is_named(toml, message, tmp_path) -> None:
    path = tmp_path / "serve.toml"
    path.write_text(("" if toml.startswith("upstream") else 'upstream = "http://u/v1"\n')
                    + toml + "\n")
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config({}, {}, path)


def test_an_empty_api_key_in_the_environment_is_none() -> None:
    config = load_config({"upstream": "http://u/v1"}, {"TOOLCALLS_SERVE_API_KEY": ""}, None)
    assert config.api_key is None
