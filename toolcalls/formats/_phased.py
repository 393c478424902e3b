"""`PhasedReader`: a reader written as a sequence of phases, one method each.

A call's text has parts (header, body, values, close); each part is read by a method
``_<phase>(ctx, eof) -> Status | None``. A phase returns a `Status` to hand control back to the
engine (wait for text, done, reject), or None after setting `phase` to the next one.
"""

from __future__ import annotations

from .._engine import Engine, Status

__all__ = ["PhasedReader"]


class PhasedReader:
    phase: str
    """The name of the phase that reads next (the method ``_<phase>``)."""

    def read(self, ctx: Engine, eof: bool) -> Status:
        status: Status | None = None
        while status is None:
            status = getattr(self, f"_{self.phase}")(ctx, eof)
        return status
