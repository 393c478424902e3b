"""The export's per-format tables, read off the format registry: what each registered format
declares (`Format.call_region`, `structural_tag_markers`, `xgrammar_style`), by registry name.

Nothing here names a format: a format's call region is built by the builder of its shape
(`BUILDERS`), so a new format written as an existing shape needs nothing in this package, and
a new shape needs one builder in the family module that writes it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..parsing._registry import get_format, list_formats
from ..parsing.formats._base import Format
from . import (
    _deepseek_kimi,
    _gemma_families,
    _json_families,
    _key_tags,
    _other_families,
    _xml_families,
)
from ._region import CallRegion

__all__ = ["BUILDERS", "REGIONS", "TAGGED", "XGRAMMAR_STYLES", "region_of"]

BUILDERS: dict[type[Any], Callable[[Any], CallRegion]] = {
    **_json_families.BUILDERS,
    **_xml_families.BUILDERS,
    **_deepseek_kimi.BUILDERS,
    **_other_families.BUILDERS,
    **_gemma_families.BUILDERS,
    **_key_tags.BUILDERS,
}
"""The region builder of each `Format.call_region` shape."""


def region_of(fmt: Format) -> CallRegion | None:
    """``fmt``'s call region, built from its declared shape; None when it declares none."""
    shape = fmt.call_region
    if shape is None:
        return None
    builder = BUILDERS.get(type(shape))
    if builder is None:
        raise TypeError(f"format {fmt.name!r}: no region builder for {type(shape).__name__}")
    return builder(shape)


_REGISTERED = [get_format(name) for name in list_formats()]

REGIONS: dict[str, CallRegion] = {
    fmt.name: region for fmt in _REGISTERED if (region := region_of(fmt)) is not None
}
"""The formats with a whole-response grammar, by registry name."""

TAGGED: dict[str, tuple[str, str, str]] = {
    fmt.name: fmt.structural_tag_markers
    for fmt in _REGISTERED if fmt.structural_tag_markers is not None
}
"""Structural tags (trigger, begin, end) of the formats whose arguments are one JSON object
between fixed strings (`_api.structural_tag`)."""

XGRAMMAR_STYLES: dict[str, str] = {
    fmt.name: fmt.xgrammar_style for fmt in _REGISTERED if fmt.xgrammar_style is not None
}
"""The xgrammar content style of each format that has one (`Format.xgrammar_style`)."""
