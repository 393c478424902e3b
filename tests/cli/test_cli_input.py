"""How the CLI reads a response (`toolcalls.cli._input`): the same text for any blocking."""

from __future__ import annotations

import pytest

from toolcalls.cli._input import InputError, TextDecoder

DAMAGED = ("Zürich — ok ".encode() + b"\xff\xfe caf\xc3 \xe2\x82 \xf0\x9f\x98"
           + "🙂".encode() + b"\xe2")


def decode_in(blocks: list[bytes], capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    decoder = TextDecoder("stdin")
    text = "".join(decoder.decode(block) for block in blocks) + decoder.finish()
    return text, capsys.readouterr().err


def test_damaged_utf8_reads_the_same_for_every_split(capsys: pytest.CaptureFixture[str]) -> None:
    whole, warning = decode_in([DAMAGED], capsys)
    assert whole == DAMAGED.decode("utf-8", "replace")
    assert warning == ("toolcalls: warning: stdin is not valid UTF-8 (byte 0xff at offset 15): "
                       "each invalid byte is read as U+FFFD\n")
    for cut in range(len(DAMAGED) + 1):
        for second in range(cut, len(DAMAGED) + 1, 3):
            blocks = [DAMAGED[:cut], DAMAGED[cut:second], DAMAGED[second:]]
            assert decode_in(blocks, capsys) == (whole, warning), (cut, second)


def test_the_offset_counts_the_sequence_a_block_left_open(
    capsys: pytest.CaptureFixture[str]
) -> None:
    text, warning = decode_in([b"ab\xe2\x82", b"(c"], capsys)
    assert text == "ab\ufffd(c" and "byte 0xe2 at offset 2" in warning


def test_a_truncated_last_character_is_read_at_the_end(
    capsys: pytest.CaptureFixture[str]
) -> None:
    text, warning = decode_in([b"done \xf0\x9f"], capsys)
    assert text == "done \ufffd" and "byte 0xf0 at offset 5" in warning


def test_valid_text_gives_no_warning(capsys: pytest.CaptureFixture[str]) -> None:
    encoded = "naïve 🙂 text".encode()
    assert decode_in([encoded[:7], encoded[7:9], encoded[9:]], capsys) == ("naïve 🙂 text", "")


def test_a_nul_byte_in_any_block_is_a_binary_file() -> None:
    decoder = TextDecoder("'x.bin'")
    assert decoder.decode(b"text ") == "text "
    with pytest.raises(InputError, match=r"'x.bin' is a binary file \(a NUL byte at offset 7\)"):
        decoder.decode(b"ab\x00")


def test_a_byte_order_mark_first_is_not_read_however_the_blocks_end(
    capsys: pytest.CaptureFixture[str]
) -> None:
    """An editor's U+FEFF made a saved response unreadable (``json`` refuses it) and a saved
    stream undetected; only the first one is dropped."""
    encoded = "\ufeff{}\ufeff".encode()
    for cut in range(len(encoded) + 1):
        assert decode_in([encoded[:cut], encoded[cut:]], capsys) == ("{}\ufeff", "")
