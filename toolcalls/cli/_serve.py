"""``toolcalls serve``: run the proxy (`toolcalls.serve`) from the shell.

Flags override ``TOOLCALLS_SERVE_*`` environment variables, which override the ``--config``
TOML file. The API key for the upstream is read from the environment (the variable
``--api-key-env NAME`` names, else ``TOOLCALLS_SERVE_API_KEY``) or the file (``api_key``)
only: a flag holding the key itself would show it in the process list.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
from typing import Any

from .._errors import ToolCallsError

__all__ = ["add_command"]

_EXTRA = ("starlette", "uvicorn", "aiohttp")
_TOML_KEYS = ("upstream", "format", "template", "model_formats (a table, MODEL = FORMAT)", "mode",
              "budget", "stream_calls", "host", "port", "allowed_hosts", "forward_credentials",
              "timeout", "max_body_bytes", "workers", "log_bodies",
              "api_key (the upstream's key)")
"""`ServeConfig`'s fields, as ``--help`` names them (a test keeps the two in step)."""


class ServeError(ToolCallsError):
    """The server cannot start: its extra is missing, or a setting is wrong."""


def add_command(commands: Any) -> None:
    """Add ``serve`` to the CLI's subparsers."""
    s = commands.add_parser("serve", help="an OpenAI and Anthropic API proxy that gives tool "
                            "calling to an OpenAI-compatible model server")
    s.add_argument("--upstream", help="the model server's OpenAI-compatible base URL, e.g. "
                   "http://127.0.0.1:8080/v1")
    s.add_argument("--format", "-f", help="the format models write calls in: a name, or auto "
                   "(from the model id; else xml) (default: auto)")
    s.add_argument("--template", metavar="FILE", help="the model's Jinja chat template: the "
                   "format is derived from it and named template (needs jinja2: pip install "
                   "'toolcalls[templates]')")
    s.add_argument("--model-format", action="append", metavar="MODEL=FORMAT",
                   help="the format of a model id or glob, e.g. 'qwen*=hermes' (repeatable; a "
                   "glob matches the id or its part after the last /, in any case)")
    s.add_argument("--mode", choices=["prompt", "repair", "auto"],
                   help="prompt: tools go into the system prompt; repair: tools pass through "
                   "and calls left in the text are moved out; auto: prompt for the models a "
                   "format is configured for, repair for the others (default: auto)")
    # numbers without type=: a value that is not one gets the same one-line error as from
    # the environment or the config file (argparse would print its usage too)
    s.add_argument("--budget", help="token budget for the tools in the prompt")
    s.add_argument("--stream-calls", choices=["live", "whole"],
                   help="streamed calls: whole (each call sent once complete; a call that "
                   "fails goes out as text) or live (arguments stream as they are read, for Chat "
                   "Completions and Messages clients; a call that fails midway was already "
                   "seen, and a client that does not check the finish reason may run it) "
                   "(default: whole)")
    s.add_argument("--host", help="address to listen on (default: 127.0.0.1, loopback only)")
    s.add_argument("--port", help="port to listen on (default: 8000)")
    s.add_argument("--allowed-host", action="append", metavar="NAME",
                   help="a name clients may reach the proxy by, in their Host header "
                   "(repeatable; * for any) (default: on a loopback --host, localhost, "
                   "127.0.0.1 and [::1] only; else any)")
    s.add_argument("--forward-credentials", action=argparse.BooleanOptionalAction,
                   default=None, help="pass each client's own key (Authorization, or an "
                   "Anthropic client's x-api-key) to the upstream as a bearer token "
                   "(default: off, so a user's real key never reaches --upstream)")
    s.add_argument("--timeout", help="seconds to wait for the upstream (default: 600)")
    s.add_argument("--max-body-bytes", help="largest request body (default: 8 MiB)")
    s.add_argument("--workers", metavar="N", help="server processes, 1..64: one serves about "
                   "one core's worth of streams (default: 1)")
    s.add_argument("--log-bodies", action="store_true", default=None,
                   help="log request bodies too (never by default)")
    s.add_argument("--api-key-env", metavar="NAME", help="the environment variable that holds "
                   "the upstream's API key, e.g. VLLM_API_KEY (default: "
                   "TOOLCALLS_SERVE_API_KEY; or api_key = \"...\" in the --config file; never "
                   "the key itself on the command line)")
    s.add_argument("--config", metavar="FILE", help="TOML file with the same settings, at "
                   "the top or under [serve]; its keys: " + ", ".join(_TOML_KEYS))
    s.set_defaults(run=_serve)


def _serve(args: argparse.Namespace) -> int:
    missing = [name for name in _EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        raise ServeError(f"serve needs {', '.join(missing)}: pip install 'toolcalls[serve]'")
    # The serve extra (starlette, uvicorn, aiohttp): loaded for this command only, once found.
    from ..serve._config import ConfigError, load_config, parse_model_formats
    from ..serve._server import serve

    try:
        values = {
            "upstream": args.upstream, "format": args.format, "template": args.template,
            "mode": args.mode,
            "model_formats": parse_model_formats(args.model_format)
            if args.model_format else None,
            "budget": args.budget, "stream_calls": args.stream_calls,
            "host": args.host, "port": args.port,
            "timeout": args.timeout, "max_body_bytes": args.max_body_bytes,
            "log_bodies": args.log_bodies, "workers": args.workers,
            "allowed_hosts": args.allowed_host,
            "forward_credentials": args.forward_credentials,
            "api_key": _key_from(args.api_key_env),
        }
        config = load_config(values, os.environ, args.config)
    except ConfigError as error:
        raise ServeError(str(error)) from None
    serve(config)
    return 0


def _key_from(variable: str | None) -> str | None:
    """The upstream key in the environment variable `variable` names (None: not given)."""
    if variable is None:
        return None
    key = os.environ.get(variable, "").strip()
    if not key:
        raise ServeError(f"--api-key-env {variable}: the environment has no {variable} (or it "
                         f"is empty): export {variable}=<the upstream's key> first")
    return key
