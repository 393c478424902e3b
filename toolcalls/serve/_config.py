"""The proxy's settings: `ServeConfig`, read by `load_config` from flags, environment, TOML.

Precedence: a flag given on the command line, then ``TOOLCALLS_SERVE_<NAME>`` in the
environment (``TOOLCALLS_SERVE_UPSTREAM``, ``..._MODEL_FORMATS`` as ``qwen*=hermes,llama*=xml``),
then the TOML file (keys as the field names, either at the top or under ``[serve]``), then
the defaults below.
"""

from __future__ import annotations

import math
import re
import tomllib
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from .._errors import FormatSpecError, UnknownFormatError
from ..parsing._declare import register_format
from ..parsing._registry import get_format, list_formats

__all__ = ["ConfigError", "Mode", "ServeConfig", "StreamCalls", "load_config",
           "parse_model_formats"]

Mode = Literal["prompt", "repair", "auto"]
_MODES: tuple[Mode, ...] = ("prompt", "repair", "auto")
StreamCalls = Literal["live", "whole"]
_STREAM_CALLS: tuple[StreamCalls, ...] = ("live", "whole")
ENV_PREFIX = "TOOLCALLS_SERVE_"
MAX_WORKERS = 64


class ConfigError(ValueError):
    """A setting that cannot be used; the message names it."""


@dataclass(frozen=True)
class ServeConfig:
    """What the proxy needs to run. Only `upstream` has no default."""

    upstream: str
    """The OpenAI-compatible server in front of which the proxy stands, with its ``/v1``
    (e.g. ``http://127.0.0.1:8080/v1``)."""
    format: str = "auto"
    """The format models write calls in: a name, or "auto" (from the model id; else ``xml``)."""
    template: str | None = None
    """A model's Jinja chat template file: its format is derived from it
    (`toolcalls.parsing.format_from_template`, the templates extra) and registered as
    ``template``, which `format` then names unless it names another."""
    model_formats: Mapping[str, str] = field(default_factory=dict)
    """Model id (exact, or a glob such as ``qwen*``) -> format name; checked first. A glob
    matches case-insensitively the whole id or its last ``/`` part (``qwen3*`` matches
    ``Qwen/Qwen3-Coder-30B``), for the format and for the mode alike."""
    mode: Mode = "auto"
    """prompt: tools rendered into the system prompt, the upstream gets none; repair: tools
    pass through, calls left in the text are moved out; auto: prompt mode for the models a
    format is configured for (`model_formats`, or a named `format`), repair for the others."""
    budget: int | None = None
    """Token budget for the tools block in prompt mode (None: no limit)."""
    stream_calls: StreamCalls = "whole"
    """How a streamed answer's calls go out: whole (the default: each call in one delta, once
    its closing marker is read; a client never sees half a call, and a call that fails goes
    out as its text) or live (each argument fragment as it is read, so a long call streams).
    Live risks what whole cannot: a call that fails after it started (malformed, or cut by
    the token limit) has been seen, name and arguments so far; it is left open, and the finish
    reason is the upstream's, but a client that runs calls as they stream, or that assembles
    calls without checking the finish reason, runs it (`providers._stream_writer`)."""
    host: str = "127.0.0.1"
    port: int = 8000
    timeout: float = 600.0
    """Seconds the upstream may take to answer (and between two streamed chunks)."""
    max_body_bytes: int = 8 * 1024 * 1024
    """A client request body larger than this is refused with 413."""
    api_key: str | None = None
    """Sent upstream as ``Authorization: Bearer`` with every request; clients' own keys are
    then never sent."""
    forward_credentials: bool = False
    """Whether each client's own key goes upstream (its ``Authorization`` header, or an
    Anthropic client's ``x-api-key`` as a bearer token) when no `api_key` is set. Off by
    default: Claude Code or an SDK pointed at the proxy sends the user's real key, which would
    go to whatever `upstream` names. Turn it on for an upstream that checks its clients' keys."""
    allowed_hosts: tuple[str, ...] = ()
    """The names clients may reach the proxy by (its requests' ``Host``, any port; ``*``: any).
    Empty: on a loopback `host`, localhost, 127.0.0.1 and [::1] only (a web page cannot drive
    the proxy through a name that resolves to 127.0.0.1, DNS rebinding); on another, any."""
    log_bodies: bool = False
    """Log request bodies too (never by default: they hold the users' conversations)."""
    workers: int = 1
    """Server processes (1..64). One process uses one core: more serve more streams at once,
    each with its own upstream connections (`_workers`)."""

    def __post_init__(self) -> None:
        _check_types(self)
        _check_upstream(self.upstream)
        _check_host(self.host)
        if self.mode not in _MODES:
            raise ConfigError(f"mode: expected one of {', '.join(_MODES)}, got {self.mode!r}")
        if self.stream_calls not in _STREAM_CALLS:
            raise ConfigError(f"stream_calls: expected live or whole, got {self.stream_calls!r}")
        if self.budget is not None and self.budget <= 0:
            raise ConfigError(f"budget: expected a positive number of tokens, got {self.budget}")
        if not 0 <= self.port <= 65535:
            raise ConfigError(f"port: expected 0..65535, got {self.port}")
        if not 1 <= self.workers <= MAX_WORKERS:
            raise ConfigError(f"workers: expected 1..{MAX_WORKERS}, got {self.workers}")
        if not (math.isfinite(self.timeout) and self.timeout > 0):
            raise ConfigError(f"timeout: expected a positive number of seconds, got "
                              f"{self.timeout!r}")
        if self.max_body_bytes <= 0:
            raise ConfigError(f"max_body_bytes: expected a positive number of bytes, got "
                              f"{self.max_body_bytes}")
        if self.api_key is not None and self.forward_credentials:
            raise ConfigError("api_key and forward_credentials: the upstream gets one key, "
                              "the configured one or each client's: set one of them")
        # JSON (the workers' settings) and TOML give a list: kept as the tuple it is typed as
        object.__setattr__(self, "allowed_hosts", tuple(self.allowed_hosts))
        for name in self.allowed_hosts:
            _check_allowed_host(name)
        if self.template is not None:
            self._use_template(self.template)
        for setting, name in [("format", self.format), *(
                (f"model_formats[{model!r}]", name) for model, name in self.model_formats.items())]:
            _check_format(setting, name)
        for pattern in self.model_formats:
            _check_glob(pattern)


    def _use_template(self, path: str) -> None:
        """Register the template's format; name it unless `format` names another. In auto
        mode its models run in repair mode: the upstream renders the tools with the very
        template; prompt mode needs the tools section described from the template."""
        unwritten = _register_template(path)
        if self.format == "auto":
            object.__setattr__(self, "format", TEMPLATE_FORMAT)
        if self.mode == "prompt" and unwritten:
            raise ConfigError(f"template: prompt mode writes the tools as the template does, "
                              f"and the tools section of {path!r} could not be described: "
                              f"{unwritten}; use mode repair (the upstream renders the tools "
                              f"with the template) or name a format")
        if self.mode == "auto":
            object.__setattr__(self, "mode", "repair")


_STRINGS = ("upstream", "format", "mode", "stream_calls", "host")
_INTEGERS = ("port", "max_body_bytes", "workers")
_BOOLEANS = ("log_bodies", "forward_credentials")


def _check_types(config: ServeConfig) -> None:
    """Each setting of the type its field says (a TOML file or a program can give any)."""
    for name in _STRINGS:
        _expect(name, getattr(config, name), str, "a string")
    for name in _INTEGERS:
        _expect(name, getattr(config, name), int, "an integer")
    for name in _BOOLEANS:
        _expect(name, getattr(config, name), bool, "true or false")
    if config.budget is not None:
        _expect("budget", config.budget, int, "an integer")
    if config.api_key is not None:
        _expect("api_key", config.api_key, str, "a string")
    if config.template is not None:
        _expect("template", config.template, str, "a file name")
    timeout = config.timeout
    if not isinstance(timeout, int | float) or isinstance(timeout, bool):
        raise ConfigError(f"timeout: expected a number of seconds, got {timeout!r}")
    if not isinstance(config.model_formats, Mapping) or not all(
            isinstance(key, str) and isinstance(value, str)
            for key, value in config.model_formats.items()):
        raise ConfigError(f"model_formats: expected MODEL = FORMAT names, got "
                          f"{config.model_formats!r}")
    hosts = config.allowed_hosts
    if isinstance(hosts, str) or not isinstance(hosts, list | tuple) or not all(
            isinstance(host, str) for host in hosts):
        raise ConfigError(f"allowed_hosts: expected a list of host names, got {hosts!r}")


def _expect(name: str, value: object, kind: type, said: str) -> None:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ConfigError(f"{name}: expected {said}, got {value!r}")


def _printable(text: str) -> bool:
    return text.isprintable() and not any(char.isspace() for char in text)


def _check_upstream(url: str) -> None:
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise ConfigError(f"upstream: {url!r} is not a URL ({error})") from None
    if parts.scheme not in ("http", "https"):
        raise ConfigError(f"upstream: expected an http(s) URL, got {url!r}")
    if not _printable(url):
        raise ConfigError(f"upstream: {url!r} holds a space or a control character")
    if not parts.hostname:
        raise ConfigError(f"upstream: {url!r} names no host")
    if port == 0:
        raise ConfigError(f"upstream: {url!r}: expected a port of 1..65535")
    if parts.query or parts.fragment:
        raise ConfigError(f"upstream: expected a base URL without ?query or #fragment, "
                          f"got {url!r}")


def _check_host(host: str) -> None:
    if not host or not _printable(host):
        raise ConfigError(f"host: expected an address to listen on, got {host!r}")


def _check_allowed_host(name: str) -> None:
    if not name or not _printable(name) or "/" in name:
        raise ConfigError(f"allowed_hosts: expected a host name (e.g. proxy.lan, 10.0.0.5 or "
                          f"*), got {name!r}")


def _check_glob(pattern: str) -> None:
    """A ``--model-format`` key: fnmatch takes any text, but an unclosed ``[`` would match
    nothing but itself, which is never what was meant."""
    if not pattern.strip() or not pattern.isprintable():
        raise ConfigError(f"model_formats: expected a model id or glob, got {pattern!r}")
    if pattern.count("[") != pattern.count("]"):
        raise ConfigError(f"model_formats: {pattern!r} has an unclosed [ (a glob's [...] "
                          "matches one of the characters in it)")


TEMPLATE_FORMAT = "template"
"""The name a format derived from `ServeConfig.template` is registered under."""


def _register_template(path: str) -> str:
    """Derive the template's format and register it, in this process (each worker does).
    Returns why the format writes no tools section, or '' when it writes one."""
    try:
        source = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"template: cannot read {path!r}: {exc}") from None
    try:  # jinja2 is the templates extra: loaded only for a proxy given a template
        from ..parsing._from_template import format_from_template, tools_from_template
    except ImportError as missing:
        raise ConfigError(f"template: {missing}") from None
    try:
        derived = register_format(format_from_template(source, name=TEMPLATE_FORMAT),
                                  replace=True)
    except FormatSpecError as exc:
        raise ConfigError(f"template: no format could be derived from {path!r}: {exc}"
                          ) from None
    if derived.spec.tools is not None:  # type: ignore[attr-defined]  # a Declared format
        return ""
    try:
        tools_from_template(source)
    except FormatSpecError as exc:
        return str(exc)
    return "the derivation found none"


def _check_format(setting: str, name: str) -> None:
    if name == "auto" and setting == "format":
        return
    try:
        get_format(name)
    except UnknownFormatError:
        raise ConfigError(f"{setting}: unknown format {name!r} (one of "
                          f"{', '.join(list_formats())})") from None


def parse_model_formats(pairs: str | list[str]) -> dict[str, str]:
    """``MODEL=FORMAT`` pairs (a list, or one string separated by commas) as a dict."""
    items = pairs.split(",") if isinstance(pairs, str) else pairs
    found: dict[str, str] = {}
    for item in (item.strip() for item in items):
        model, sep, name = item.partition("=")
        if not item:
            continue
        if not sep or not model.strip() or not name.strip():
            raise ConfigError(f"model_formats: expected MODEL=FORMAT, got {item!r}")
        found[model.strip()] = name.strip()
    return found


def load_config(
    argv_values: Mapping[str, Any], environ: Mapping[str, str], toml_path: str | Path | None
) -> ServeConfig:
    """The settings: `argv_values` (flags given; None means not given) over `environ`
    (``TOOLCALLS_SERVE_*``) over the TOML file at `toml_path` (if any) over the defaults."""
    values: dict[str, Any] = {}
    if toml_path is not None:
        values.update(_from_toml(Path(toml_path)))
    values.update(_from_environ(environ))
    values.update({k: v for k, v in argv_values.items() if v is not None})
    if "upstream" not in values:
        raise ConfigError("upstream: required (--upstream URL, TOOLCALLS_SERVE_UPSTREAM, or "
                          "upstream = \"...\" in the config file)")
    known = {f.name for f in fields(ServeConfig)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ConfigError(f"unknown setting(s): {', '.join(unknown)}")
    return ServeConfig(**{name: _typed(name, value) for name, value in values.items()})


def _from_toml(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"cannot read config file {str(path)!r}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"config file {str(path)!r}: {error}") from None
    section = data.get("serve", data)
    if not isinstance(section, dict):
        raise ConfigError(f"config file {str(path)!r}: [serve] must be a table")
    return dict(section)


def _from_environ(environ: Mapping[str, str]) -> dict[str, Any]:
    names = {f.name for f in fields(ServeConfig)}
    return {name: environ[ENV_PREFIX + name.upper()] for name in names
            if ENV_PREFIX + name.upper() in environ}


def _typed(name: str, value: Any) -> Any:
    """A value from the environment (always text) or TOML as the field's type; a value of the
    wrong type is left for `ServeConfig` to name."""
    if not isinstance(value, str):
        if name == "model_formats" and isinstance(value, list) and all(
                isinstance(item, str) for item in value):
            return parse_model_formats(value)
        return _listed(name, value) if name == "allowed_hosts" else value
    text = value.strip()
    if name in _INTEGERS or name == "budget":
        if name == "budget" and not text:
            return None
        if re.fullmatch(r"[+-]?[0-9]+", text) is None:
            raise ConfigError(f"{name}: expected an integer, got {value!r}")
        return int(text)
    if name == "timeout":
        try:
            return float(text)
        except ValueError:
            raise ConfigError(f"timeout: expected a number of seconds, got {value!r}") from None
    if name in _BOOLEANS:
        if text.lower() not in _TRUE + _FALSE:
            raise ConfigError(f"{name}: expected true or false, got {value!r}")
        return text.lower() in _TRUE
    if name == "model_formats":
        return parse_model_formats(value)
    if name == "api_key":
        return value or None
    if name == "allowed_hosts":
        return _listed(name, value.split(","))
    return value


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def _listed(name: str, value: Any) -> Any:
    """A list of names, each stripped, the empty ones left out."""
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return tuple(item.strip() for item in value if item.strip())
    return value
