"""``--template FILE``: the format a model's chat template writes, for ``parse`` and ``serve``."""

from __future__ import annotations

from pathlib import Path

from ..parsing.formats._base import Format
from ._input import InputError

__all__ = ["format_of_template"]


def format_of_template(path: str) -> Format:
    """The format derived from the Jinja chat template in `path` (`format_from_template`).

    Raises:
        InputError: the file cannot be read, or jinja2 (the templates extra) is missing.
        TemplateFormatError: no format could be derived; the message says why.
    """
    try:
        source = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the chat template {path!r}: {exc}") from None
    try:  # jinja2 is the templates extra: loaded for this option only, once asked for
        from ..parsing._from_template import format_from_template
    except ImportError as missing:
        raise InputError(str(missing)) from None
    return format_from_template(source, name="template")
