"""The proxy's settings: `ServeConfig`, read by `load_config` from flags, environment, TOML.

Precedence: a flag given on the command line, then ``TOOLCALLS_SERVE_<NAME>`` in the
environment (``TOOLCALLS_SERVE_UPSTREAM``, ``..._MODEL_FORMATS`` as ``qwen*=hermes,llama*=xml``),
then the TOML file (keys as the field names, either at the top or under ``[serve]``), then
the defaults below.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

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
    model_formats: Mapping[str, str] = field(default_factory=dict)
    """Model id (exact, or a glob such as ``qwen*``) -> format name; checked first."""
    mode: Mode = "auto"
    """prompt: tools rendered into the system prompt, the upstream gets none; repair: tools
    pass through, calls left in the text are moved out; auto: prompt mode for the models a
    format is configured for (`model_formats`, or a named `format`), repair for the others."""
    budget: int | None = None
    """Token budget for the tools block in prompt mode (None: no limit)."""
    stream_calls: StreamCalls = "live"
    """How a streamed answer's calls go out: live (each argument fragment as it is read, so
    a long call streams) or whole (once the call is complete: a client never sees half a
    call; a call cut off is never shown). In live mode a call that fails after it started
    stays open on the wire and the finish reason is the upstream's (`providers._emit`)."""
    host: str = "127.0.0.1"
    port: int = 8000
    timeout: float = 600.0
    """Seconds the upstream may take to answer (and between two streamed chunks)."""
    max_body_bytes: int = 8 * 1024 * 1024
    """A client request body larger than this is refused with 413."""
    api_key: str | None = None
    """Sent upstream as ``Authorization: Bearer``; when None, the client's header is passed."""
    log_bodies: bool = False
    """Log request bodies too (never by default: they hold the users' conversations)."""
    workers: int = 1
    """Server processes (1..64). One process uses one core: more serve more streams at once,
    each with its own upstream connections (`_workers`)."""

    def __post_init__(self) -> None:
        if not self.upstream.startswith(("http://", "https://")):
            raise ConfigError(f"upstream: expected an http(s) URL, got {self.upstream!r}")
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
        if self.timeout <= 0 or self.max_body_bytes <= 0:
            raise ConfigError("timeout and max_body_bytes must be positive")
        for setting, name in [("format", self.format), *(
                (f"model_formats[{model!r}]", name) for model, name in self.model_formats.items())]:
            _check_format(setting, name)


def _check_format(setting: str, name: str) -> None:
    from .._errors import UnknownFormatError
    from ..parsing._registry import get_format, list_formats

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
    """A value from the environment (always text) or TOML as the field's type."""
    try:
        if name in ("port", "max_body_bytes", "workers"):
            return int(value)
        if name == "budget":
            return None if value in ("", None) else int(value)
        if name == "timeout":
            return float(value)
        if name == "log_bodies":
            return value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes")
        if name == "model_formats":
            return dict(value) if isinstance(value, Mapping) else parse_model_formats(value)
    except ConfigError:
        raise
    except (TypeError, ValueError):
        raise ConfigError(f"{name}: cannot use {value!r}") from None
    return value
