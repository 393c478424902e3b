"""``toolcalls serve``: an HTTP proxy that gives tool calling to any model server.

It speaks the OpenAI Chat Completions API (``POST /v1/chat/completions``), the Anthropic
Messages API (``POST /v1/messages``) and the OpenAI Responses API (``POST /v1/responses``,
stateless: the client sends the whole history), streamed and whole, in front of an upstream that
speaks OpenAI Chat Completions; calls the upstream leaves in its text are parsed out and
returned as ``tool_calls`` / ``tool_use`` blocks / ``function_call`` items. It also counts
tokens for Anthropic clients (``POST /v1/messages/count_tokens``, `_count_tokens`); any other
route is answered 404 (405 for a wrong method) in the client API's error shape, naming the
routes served. Needs the extra: ``pip install 'toolcalls[serve]'`` (starlette, uvicorn, aiohttp),
which the rest of toolcalls never imports.

`ServeConfig` holds the settings (`load_config` reads flags, environment and a TOML file),
`create_app` builds the ASGI app, `serve` runs it under uvicorn.

The way through, top to bottom: `_server` (`serve`; `_workers` for several processes, `_process`
for what each sets up) → `_app` (routes, the one error handler, `_access` and `_guard` at the
edge) → `_proxy` (a request planned, the upstream's answer relayed) → `apis` (what each inbound
API is) → the request checks (`_requests`, `_anthropic_request`, `_responses_request`,
`_prompt`, `_budget`). At start, `_startup` writes the effective configuration; `_format_watch`
warns when a model writes another format than the one configured for it.

Adding an inbound API is one module and one row: a module in
`apis/` with an `apis.InboundApi` subclass (its name, route, the `toolcalls.providers` name whose
writers answer it, its call id prefix, how its request reads into a Chat Completions request,
its error body, how its stream is framed) and an instance of it in `apis.APIS`. The app builds
its route from the row and answers its errors in its shape; nothing else names an API. Its
request reader raises `_requests.RequestError` (a `ProxyError`) naming a wrong field.

Keys and exposure, safe by default (each said in a log line at start):

- the upstream gets the configured ``api_key``, else no key at all: a client's own key (its
  ``Authorization``, or the ``x-api-key`` Claude Code and the Anthropic SDK send, which would go
  as a bearer token) is forwarded only with ``forward_credentials`` on (``--forward-credentials``,
  ``TOOLCALLS_SERVE_FORWARD_CREDENTIALS``), as a user pointing an Anthropic client at the proxy
  must not hand their Anthropic key to whatever ``--upstream`` names. The two together are
  refused: the upstream gets one key;
- no cookie the upstream sets is kept: one upstream client serves every client of the proxy;
- on a loopback bind (the default) a request must name localhost, 127.0.0.1 or [::1] in its
  ``Host`` (or a name in ``allowed_hosts``; 421 otherwise), and a POST body must come as
  ``Content-Type: application/json`` (415 otherwise): a web page the user visits can then drive
  the proxy neither through a simple cross-origin request nor through DNS rebinding (`_guard`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes, lazy_dir

if TYPE_CHECKING:
    from ._app import create_app as create_app
    from ._config import ServeConfig as ServeConfig
    from ._server import serve as serve

_LAZY = {"ServeConfig": "._config", "create_app": "._app", "serve": "._server"}
__all__ = ["ServeConfig", "create_app", "serve"]
__getattr__ = lazy_attributes(__name__, _LAZY)
__dir__ = lazy_dir(__name__, _LAZY)
