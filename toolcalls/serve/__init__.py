"""``toolcalls serve``: an HTTP proxy that gives tool calling to any model server.

It speaks the OpenAI Chat Completions API (``POST /v1/chat/completions``) and the Anthropic
Messages API (``POST /v1/messages``), streamed and whole, in front of an upstream that speaks
OpenAI Chat Completions; calls the upstream leaves in its text are parsed out and returned as
``tool_calls`` / ``tool_use`` blocks. Needs the extra: ``pip install 'toolcalls[serve]'``
(starlette, uvicorn, httpx), which the rest of toolcalls never imports.

`ServeConfig` holds the settings (`load_config` reads flags, environment and a TOML file),
`create_app` builds the ASGI app, `serve` runs it under uvicorn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes

if TYPE_CHECKING:
    from ._app import create_app as create_app
    from ._app import serve as serve
    from ._config import ServeConfig as ServeConfig

_LAZY = {"ServeConfig": "._config", "create_app": "._app", "serve": "._app"}
__all__ = ["ServeConfig", "create_app", "serve"]
__getattr__ = lazy_attributes(__name__, _LAZY)
