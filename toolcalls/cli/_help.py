"""``--help`` that shows each option's default: argparse's own formatter, which adds
"(default: ...)" to options whose help does not say it already, except flags (``False``) and
options without one (``None``), where it would only be noise."""

from __future__ import annotations

import argparse

__all__ = ["HelpFormatter"]


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if ("default" in text or default in (None, False, argparse.SUPPRESS)
                or isinstance(default, list) and not default):
            return text
        return f"{text} (default: %(default)s)"
