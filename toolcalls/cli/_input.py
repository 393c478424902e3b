"""Reading a response for the CLI: bytes in, text out, the same in one piece or block by block.

- A NUL byte means the input is not text (an image, an archive, a program): the command stops
  with `InputError` (exit status 2). Model output never holds one.
- A byte order mark (U+FEFF) first in the input, which some editors save, is not read: it is
  not part of the response (`json` refuses it, and the SSE spec drops it).
- Invalid UTF-8 is read as U+FFFD, each bad sequence as Python's decoder replaces it, which
  does not depend on where the blocks end: ``parse --stream`` still gives what ``parse`` gives.
  The first bad byte is reported once, on stderr, as a warning; the exit status is unchanged.
"""

from __future__ import annotations

import codecs
import io
import sys
from pathlib import Path
from typing import BinaryIO, cast

from .._errors import ToolCallsError
from ..tools._importers import load_tools
from ..tools._samples import sample_tools, sample_toolsets
from ..tools._tool import Tool

__all__ = ["InputError", "TextDecoder", "input_name", "open_input", "read_input",
           "read_tools", "warn"]


class InputError(ToolCallsError):
    """An input file (the response or --tools) could not be used."""


def warn(message: str) -> None:
    """One line on stderr, after what stdout already holds (so a terminal shows them in order)."""
    sys.stdout.flush()
    print(f"toolcalls: warning: {message}", file=sys.stderr, flush=True)


class TextDecoder:
    """UTF-8 bytes to text, block by block, refusing binary input (see the module docstring)."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
        self._decoded = 0  # bytes passed in so far: where the next block starts
        self._started = False  # whether text came (a byte order mark first is dropped)

    def decode(self, block: bytes, final: bool = False) -> str:
        """The text of ``block`` (plus what the last block left unfinished)."""
        if b"\0" in block:
            offset = self._decoded + block.index(b"\0")
            raise InputError(f"{self._name} is a binary file (a NUL byte at offset {offset}), "
                             "not a model response")
        held = len(self._decoder.getstate()[0])  # the unfinished sequence the decoder holds
        try:
            text = self._decoder.decode(block, final)
        except UnicodeDecodeError as error:  # the decoder kept its state: decode again
            offset = self._decoded - held + error.start
            warn(f"{self._name} is not valid UTF-8 (byte 0x{error.object[error.start]:02x} at "
                 f"offset {offset}): each invalid byte is read as U+FFFD")
            self._decoder.errors = "replace"
            text = self._decoder.decode(block, final)
        self._decoded += len(block)
        if not self._started and text:
            self._started = True
            text = text.removeprefix("\ufeff")
        return text

    def finish(self) -> str:
        """What an unfinished sequence at the end of the input reads as (U+FFFD), or ''."""
        return self.decode(b"", final=True)


def input_name(file: str) -> str:
    """How messages name the input: stdin, or the file's path quoted."""
    return "stdin" if file == "-" else repr(file)


def open_input(file: str) -> io.BufferedReader:
    """The input as raw bytes: stdin for ``-``; `read1` returns whatever has arrived."""
    if file == "-":
        return cast(io.BufferedReader, sys.stdin.buffer)
    try:
        return open(file, "rb")  # noqa: SIM115 - the caller closes it
    except OSError as error:
        raise InputError(f"cannot read {file!r}: {error.strerror}") from None


def read_input(file: str) -> str:
    """The whole input as text, decoded by `TextDecoder`."""
    handle: BinaryIO = open_input(file)
    try:
        data = handle.read()
    except OSError as error:
        raise InputError(f"cannot read {input_name(file)}: {error.strerror}") from None
    finally:
        if file != "-":
            handle.close()
    return TextDecoder(input_name(file)).decode(data, final=True)


def read_tools(spec: str) -> list[Tool]:
    """The tools of a JSON file, or, where no file of that name exists, of the shipped sample
    tool set it names (`toolcalls.tools.sample_toolsets`), so the examples run anywhere."""
    if Path(spec).exists():
        return load_tools(spec)
    if spec.removesuffix(".json") in sample_toolsets():
        return sample_tools(spec)
    raise InputError(f"cannot read tools file {spec!r}: no such file, nor a sample tool set of "
                     f"that name ({', '.join(sample_toolsets())})")
