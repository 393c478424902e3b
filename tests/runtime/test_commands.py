"""split_command: every simple command a shell would run from one string."""

from __future__ import annotations

import pytest

from toolcalls.runtime._commands import split_command


@pytest.mark.parametrize(("command", "texts"), [
    ("git status", ["git status"]),
    ("a; b && c || d | e & f\ng", ["a", "b", "c", "d", "e", "f", "g"]),
    ("echo $(rm x)", ["rm x", "echo $(...)"]),
    ("echo \"$(rm x) and `ls`\"", ["rm x", "ls", "echo $(...) and $(...)"]),
    ("bash -c 'a; b'", ["bash -c a; b", "a", "b"]),
    ("eval 'rm x'", ["eval rm x", "rm x"]),
    ("find . -exec rm {} \\;", ["find . -exec rm {} ;", "rm {}"]),
    ("find . -exec rm {} ;", ["find . -exec rm {}", "rm {}"]),  # the shell ends it at ;
    ("ls | xargs -0 rm", ["ls", "xargs -0 rm", "rm"]),
    ("FOO=1 BAR='x y' make", ["make"]),
    ("'r'\"m\" -rf \\x", ["rm -rf x"]),
    ("echo 'a;b' \"c|d\"", ["echo a;b c|d"]),
    ("{ a; b; }", ["a", "b"]),
    ("cat <(ls) >(wc)", ["ls", "wc", "cat $(...) $(...)"]),
    ("ls # ; rm x", ["ls"]),
    ("x=$(whoami)", ["whoami"]),
])
def test_split_into_simple_commands(command: str, texts: list[str]) -> None:
    split = split_command(command)
    assert split.error is None
    assert [sub.text for sub in split.commands] == texts


@pytest.mark.parametrize(("command", "writes"), [
    ("echo hi > out.txt", True), ("echo hi >> ~/.bashrc", True), ("ls 2>err", True),
    ("ls &> all.log", True), ("ls >/dev/null 2>&1", False), ("ls 2>&1", False),
    ("sort < in.txt", False), ("echo '>' x", False),
])
def test_output_redirection_to_a_file_is_recorded(command: str, writes: bool) -> None:
    assert any(sub.writes_file for sub in split_command(command).commands) is writes


@pytest.mark.parametrize("command", ["$CMD x", "`which rm` x", "r* -rf x", "${X} y"])
def test_command_word_from_an_expansion_is_dynamic(command: str) -> None:
    assert split_command(command).commands[-1].dynamic


@pytest.mark.parametrize("command", ["echo 'a", 'echo "a', "echo $(ls", "echo `ls",
                                     "$(" * 40 + ")" * 40])
def test_unparseable_command_says_why(command: str) -> None:
    assert split_command(command).error is not None


def test_core_strips_wrappers_and_directories() -> None:
    (sub,) = split_command("sudo -E env A=1 nice -n 5 timeout 3 /usr/bin/rm -rf x").commands
    assert sub.core().text == "rm -rf x"


def test_deep_but_linear_input_stays_fast() -> None:
    split = split_command("a;" * 20_000)
    assert len(split.commands) == 20_000
