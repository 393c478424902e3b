"""pyarrow, the ``arrow`` extra: imported here only, so its absence is said plainly once."""

from __future__ import annotations

try:
    import pyarrow as pa
    import pyarrow.compute as pc
except ImportError as missing:
    raise ImportError("toolcalls.arrow needs pyarrow: pip install 'toolcalls[arrow]'") from missing

__all__ = ["pa", "pc"]
