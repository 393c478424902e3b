"""What ``toolcalls serve`` says at start (`configuration_block`): one block with the effective
configuration, after flags, environment and file are merged, so a user sees what the proxy
will do before the first request: where it sends requests, which mode and format each model
gets, the budget, workers and how streamed calls go out, and whether the upstream gets a key
(never the key itself)."""

from __future__ import annotations

from .._version import __version__
from ._config import ServeConfig
from ._guard import allowed_hosts
from ._upstream import credentials_in_force

__all__ = ["configuration_block"]


def configuration_block(config: ServeConfig) -> str:
    """The effective configuration, one setting a line, under a heading."""
    rows = [
        ("upstream", config.upstream),
        ("listening on", f"{config.host}:{config.port} ({_workers(config.workers)})"),
        ("hosts answered", _hosts(config)),
        ("mode", _mode(config)),
        ("format", _format(config.format)),
        ("model formats", ", ".join(f"{model}={name}" for model, name in
                                    config.model_formats.items()) or "none"),
        ("budget", f"{config.budget} tokens for the tools in the prompt" if config.budget
         else "none: every tool in full"),
        ("stream calls", _stream_calls(config)),
        ("timeout", f"{config.timeout:g} s"),
        ("upstream key", credentials_in_force(config)),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join([f"toolcalls {__version__} serve, effective configuration:",
                      *(f"  {name + ':':<{width + 1}} {value}" for name, value in rows)])


def _workers(count: int) -> str:
    return "1 worker process" if count == 1 else f"{count} worker processes"


def _hosts(config: ServeConfig) -> str:
    allowed = allowed_hosts(config)
    if allowed is None:
        return "any Host (host is not loopback, or allowed_hosts has *)"
    return ", ".join(sorted(allowed))


def _mode(config: ServeConfig) -> str:
    if config.mode == "prompt":
        return "prompt: tools go into the system prompt, the upstream gets none"
    if config.mode == "repair":
        return "repair: tools pass through; calls left in the text are moved out"
    if config.format != "auto":
        return f"auto: prompt for every model (format {config.format} is named)"
    if config.model_formats:
        return (f"auto: prompt for {', '.join(config.model_formats)}; repair for other "
                "models")
    return "auto: repair for every model (no format configured; --model-format MODEL=FORMAT)"


def _format(name: str) -> str:
    if name == "auto":
        return "auto: from the model id, else xml (repair mode reads any markup)"
    return name


def _stream_calls(config: ServeConfig) -> str:
    if config.stream_calls == "whole":
        return "whole: each call sent once complete"
    return "live: arguments stream as they are read"
