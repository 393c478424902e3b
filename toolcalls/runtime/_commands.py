"""A shell command as permission rules see it: every simple command it would run.

``git status; rm -rf x`` is two commands, and a rule that allows ``git status*`` must not allow
the second. `split_command` finds every simple command a POSIX shell would run from a string:

- separated by ``;``, ``&&``, ``||``, ``|``, ``|&``, ``&``, newlines, ``(`` and ``)``;
- inside ``$(...)``, backticks, ``<(...)`` and ``>(...)``, also within double quotes;
- inside ``sh -c '...'`` (and bash, zsh, dash, ksh), ``eval ...``, ``find ... -exec ... ;``
  and ``xargs ...``, whose text is a command again.

Each `SubCommand` has its words as the shell would pass them (quotes and backslashes removed,
so ``'r'm`` is ``rm``), without leading ``NAME=value`` assignments. It records what a rule
cannot vouch for by its words alone: an output redirection to a file (``> ~/.bashrc``), and a
command word that only an expansion decides (``$CMD``, a glob). A string the shell could not
parse either (an unclosed quote or substitution) gives `CommandSplit.error`: a rule never
allows it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["CommandSplit", "SubCommand", "split_command"]

_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "fish"})
_WRAPPERS = frozenset({"sudo", "doas", "env", "nohup", "time", "exec", "command", "builtin",
                       "nice", "ionice", "timeout", "stdbuf", "unbuffer", "chroot", "setsid"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_MAX_DEPTH = 16  # nested substitutions deeper than this are refused, not followed


@dataclass(frozen=True)
class SubCommand:
    """One simple command of a command line."""

    words: tuple[str, ...]
    writes_file: bool = False
    """It redirects output to a file (``/dev/null`` and ``2>&1`` are not files)."""
    dynamic: bool = False
    """Its command word comes from an expansion or a glob: its words do not say what runs."""

    @property
    def text(self) -> str:
        """The words joined by single spaces: what a rule's pattern is matched against."""
        return " ".join(self.words)

    def core(self) -> SubCommand:
        """The command inside wrappers (``sudo``, ``env``, ``nohup``, ``timeout 5``...), for
        deny rules: ``sudo rm -rf x`` is still ``rm -rf x``; its command word without its
        directory too (``/bin/rm`` is ``rm``)."""
        words = list(self.words)
        while words and words[0].rsplit("/", 1)[-1] in _WRAPPERS:
            words.pop(0)
            while words and (words[0].startswith("-") or _ASSIGNMENT.match(words[0])
                             or words[0].replace(".", "", 1).isdigit()):
                words.pop(0)
        if words:
            words[0] = words[0].rsplit("/", 1)[-1]
        return SubCommand(tuple(words), self.writes_file, self.dynamic)


@dataclass(frozen=True)
class CommandSplit:
    """Every simple command of a command line, or why it cannot be read."""

    commands: tuple[SubCommand, ...] = ()
    error: str | None = None


class _Unparseable(ValueError):
    pass


def split_command(command: str) -> CommandSplit:
    """The simple commands `command` would run (see the module docstring)."""
    found: list[SubCommand] = []
    try:
        _collect(command, found, depth=0)
    except _Unparseable as error:
        return CommandSplit(tuple(found), str(error))
    return CommandSplit(tuple(found))


def _collect(text: str, found: list[SubCommand], depth: int) -> None:
    if depth > _MAX_DEPTH:
        raise _Unparseable("substitutions nested too deep")
    segments, nested = _segments(text)
    for body in nested:
        _collect(body, found, depth + 1)
    for segment in segments:
        sub = _simple_command(segment)
        if sub is None:
            continue
        found.append(sub)
        for inner in _inner_commands(sub):
            _collect(inner, found, depth + 1)


@dataclass
class _Scan:
    text: str
    index: int = 0
    segments: list[str] = field(default_factory=list)
    nested: list[str] = field(default_factory=list)
    current: list[str] = field(default_factory=list)

    def cut(self) -> None:
        self.segments.append("".join(self.current))
        self.current = []


def _segments(text: str) -> tuple[list[str], list[str]]:
    """The simple-command texts of `text` and the bodies of its substitutions."""
    scan = _Scan(text)
    quote: str | None = None
    while scan.index < len(text):
        char = text[scan.index]
        if quote == "'":
            quote = None if char == "'" else quote
            scan.current.append(char)
            scan.index += 1
        elif char == "\\":
            scan.current.append(text[scan.index:scan.index + 2])
            scan.index += 2
        elif _substitution(scan, quote):
            continue
        elif quote == '"':
            quote = None if char == '"' else quote
            scan.current.append(char)
            scan.index += 1
        elif char in "'\"":
            quote = char
            scan.current.append(char)
            scan.index += 1
        else:
            _unquoted(scan, char)
    if quote is not None:
        raise _Unparseable(f"an unclosed {quote} quote")
    scan.cut()
    return scan.segments, scan.nested


def _substitution(scan: _Scan, quote: str | None) -> bool:
    """Take a ``$(...)``, backtick, ``<(...)`` or ``>(...)`` at the scan's position."""
    text, index = scan.text, scan.index
    if text.startswith("$(", index) or (quote is None and text.startswith(("<(", ">("), index)):
        end = _closing_paren(text, index + 2)
        scan.nested.append(text[index + 2:end])
    elif text[index] == "`":
        end = text.find("`", index + 1)
        while end != -1 and text[end - 1] == "\\":
            end = text.find("`", end + 1)
        if end == -1:
            raise _Unparseable("an unclosed backtick")
        scan.nested.append(text[index + 1:end].replace("\\`", "`"))
    else:
        return False
    scan.current.append("$(...)")  # an expansion: its value is not known here
    scan.index = end + 1
    return True


def _unquoted(scan: _Scan, char: str) -> None:
    text, index = scan.text, scan.index
    two = text[index:index + 2]
    redirect = index > 0 and text[index - 1] in "<>" or text[index + 1:index + 2] == ">"
    if two in ("&&", "||", "|&"):
        scan.cut()
        scan.index += 2
    elif char in ";|\n()" or (char == "&" and not redirect):
        scan.cut()
        scan.index += 1
    elif char == "#" and (index == 0 or text[index - 1].isspace()):
        newline = text.find("\n", index)
        scan.index = len(text) if newline == -1 else newline
    else:
        scan.current.append(char)
        scan.index += 1


def _closing_paren(text: str, start: int) -> int:
    """The index of the ``)`` that closes a group opened just before `start`."""
    depth, index, quote = 1, start, None
    while index < len(text):
        char = text[index]
        if quote == "'":
            quote = None if char == "'" else quote
        elif char == "\\":
            index += 1
        elif quote == '"':
            quote = None if char == '"' else quote
        elif char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    raise _Unparseable("an unclosed $( or (")


@dataclass
class _Words:
    words: list[str] = field(default_factory=list)
    expanded: list[bool] = field(default_factory=list)
    writes_file: bool = False
    target: str | None = None  # "out" or "in" while a redirection waits for its target


@dataclass
class _Word:
    """The word being read: its characters so far, and what the scan has seen of it."""

    chars: list[str] = field(default_factory=list)
    quote: str | None = None
    started: bool = False  # '' is a word, though it has no characters
    expanded: bool = False


def _simple_command(segment: str) -> SubCommand | None:
    """One simple command's words, unquoted, with its redirections taken out."""
    parsed = _split_words(segment)
    words, expanded = parsed.words, parsed.expanded
    while words and (_ASSIGNMENT.match(words[0]) or words[0] in ("{", "}", "!")):
        words, expanded = words[1:], expanded[1:]
    if words and words[-1] == "}":
        words, expanded = words[:-1], expanded[:-1]
    if not words:
        return None if not parsed.writes_file else SubCommand((), True, False)
    return SubCommand(tuple(words), parsed.writes_file, expanded[0])


def _split_words(segment: str) -> _Words:
    out, word, index = _Words(), _Word(), 0
    while index < len(segment):
        char = segment[index]
        if word.quote == "'":
            if char == "'":
                word.quote = None
            else:
                word.chars.append(char)
        elif word.quote == '"':
            if char == '"':
                word.quote = None
            elif char == "\\" and segment[index + 1:index + 2] in ("$", "`", '"', "\\"):
                index += 1
                word.chars.append(segment[index])
            else:
                word.expanded = word.expanded or char in "$`"
                word.chars.append(char)
        elif char == "\\":
            index += 1
            word.chars.append(segment[index:index + 1])
            word.started = True
        elif char in "'\"":
            word.quote, word.started = char, True
        elif char.isspace():
            word = _finish(out, word)
        elif char in "<>":
            index, word = _redirection(out, segment, index, word)
            continue
        else:
            word.expanded = word.expanded or char in "$`*?["
            word.started = True
            word.chars.append(char)
        index += 1
    if word.quote is not None:
        raise _Unparseable(f"an unclosed {word.quote} quote")
    _finish(out, word)
    return out


def _finish(out: _Words, word: _Word) -> _Word:
    """Add `word` to `out` (or take it as a redirection's target); returns a fresh word."""
    if not (word.chars or word.started):
        return word
    text = "".join(word.chars)
    if out.target is not None:
        if out.target == "out" and text != "/dev/null":
            out.writes_file = True
        out.target = None
    else:
        out.words.append(text)
        out.expanded.append(word.expanded)
    return _Word()


def _redirection(out: _Words, segment: str, index: int, word: _Word) -> tuple[int, _Word]:
    """Read a redirection operator at `index`; returns the index after it and a fresh word."""
    if word.chars and "".join(word.chars).isdigit():  # the file descriptor of 2>x, not a word
        word = _Word()
    else:
        word = _finish(out, word)
    end = index
    while end < len(segment) and segment[end] in "<>&|":
        end += 1
    operator = segment[index:end]
    rest = segment[end:].lstrip()
    duplicated = re.match(r"^(\d+|-)(\s|$)", rest)
    if operator.endswith("&") and duplicated:  # 2>&1, >&-: a descriptor, not a file
        return len(segment) - len(rest) + len(duplicated.group(1)), word
    out.target = "out" if ">" in operator else "in"
    return end, word


def _inner_commands(sub: SubCommand) -> list[str]:
    """Command text that `sub` hands to a shell or runs: ``sh -c TEXT``, ``eval``, ``find
    -exec``, ``xargs``."""
    words = list(sub.core().words)
    if not words:
        return []
    name = words[0]
    if name in _SHELLS and "-c" in words[1:]:
        position = words.index("-c", 1)
        return words[position + 1:position + 2]
    if name == "eval":
        return [" ".join(words[1:])]
    if name == "xargs":
        rest = words[1:]
        while rest and rest[0].startswith("-"):
            rest = rest[1:]
        return [" ".join(rest)] if rest else []
    if name == "find":
        return _find_actions(words)
    return []


def _find_actions(words: list[str]) -> list[str]:
    actions, index = [], 0
    while index < len(words):
        if words[index] in ("-exec", "-execdir", "-ok", "-okdir"):
            end = index + 1
            while end < len(words) and words[end] not in (";", "+"):
                end += 1
            actions.append(" ".join(words[index + 1:end]))
            index = end
        index += 1
    return actions
