"""Every ``--help`` page ends with examples, and every example parses as its command.

The commands are read from the typer app itself, so a command added without an
example fails here; each example is parsed by click against the command it names
(its options, their values and its arguments), so an example cannot outlive a
renamed or removed flag. (typer carries its own copy of click: commands and groups
are told apart by their ``commands``.)"""

from __future__ import annotations

import shlex
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from servescope.cli import app
from servescope.cli_examples import EXAMPLES, WIDTH, shell_lines

ROOT = typer.main.get_command(app)


def is_group(cmd: Any) -> bool:
    return isinstance(getattr(cmd, "commands", None), dict)


def command_paths(cmd: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and group below ``cmd`` (and itself), as name paths."""
    out = [path]
    if is_group(cmd):
        for name, sub in cmd.commands.items():
            out.extend(command_paths(sub, (*path, name)))
    return out


PATHS = command_paths(ROOT)


def help_page(path: tuple[str, ...]) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], terminal_width=80)
    assert result.exit_code == 0, result.output
    return result.output


def examples_in(page: str) -> list[str]:
    """The example command lines of a help page, continuation lines joined."""
    lines = page.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "Examples")
    out: list[str] = []
    continued = False
    for line in lines[start + 1 :]:
        text = line.strip()
        if continued:
            out[-1] += " " + text.removesuffix("\\").strip()
        elif text.startswith("servescope "):
            out.append(text.removesuffix("\\").strip())
        continued = text.endswith("\\")
    return out


def resolve(args: list[str]) -> tuple[tuple[str, ...], Any, list[str]]:
    """The command an example runs, its path and its arguments (after the path)."""
    cmd: Any = ROOT
    path: tuple[str, ...] = ()
    while is_group(cmd) and args and args[0] in cmd.commands:
        cmd = cmd.commands[args[0]]
        path, args = (*path, args[0]), args[1:]
    return path, cmd, args


def test_the_walk_finds_every_command() -> None:
    # (if this count changes, a command was added or removed: it needs an entry in cli_examples.EXAMPLES)
    assert ("catalog", "list") in PATHS and ("engine", "start") in PATHS and ("",) not in PATHS
    assert len([p for p in PATHS if not is_group(resolve(list(p))[1])]) >= 18
    assert {" ".join(p) for p in PATHS} == set(EXAMPLES), "every command, and nothing else, has examples"


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "servescope")
def test_every_help_page_shows_examples_of_its_own_command(path: tuple[str, ...]) -> None:
    page = help_page(path)
    commands = examples_in(page)
    prefix = " ".join(("servescope", *path))
    assert any(c == prefix or c.startswith(prefix + " ") for c in commands), page
    assert len(commands) == len(EXAMPLES[" ".join(path)])
    # nothing wrapped by the terminal's width: each line a comment, a command or a command's continuation
    section = page.splitlines()[[line.strip() for line in page.splitlines()].index("Examples") + 1 :]
    for line in (x.rstrip() for x in section if x.strip()):
        assert line.startswith((" # ", "   servescope ", "       ")) and not line.startswith("        "), f"wrapped: {line!r}"


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "servescope")
def test_every_example_parses_as_the_command_it_names(path: tuple[str, ...]) -> None:
    """Each example's options exist on its command, take the values given, and its arguments fit
    (click parses them as a run would, without running the command)."""
    for line in examples_in(help_page(path)):
        words = shlex.split(line)
        assert words[0] == "servescope"
        sub_path, cmd, args = resolve(words[1:])
        assert not is_group(cmd), f"{line}: names no command"
        known = {opt for p in cmd.params for opt in (*p.opts, *p.secondary_opts)}
        for word in args[: args.index("--") if "--" in args else len(args)]:
            if word.startswith("-"):
                assert word.split("=")[0] in known, f"{line}: {word} is not an option of servescope {' '.join(sub_path)}"
        with cmd.make_context(" ".join(sub_path), list(args)) as ctx:  # raises on a bad value, a missing option or argument
            assert ctx.params is not None


def test_a_long_example_is_broken_between_arguments_and_joins_back() -> None:
    command = "servescope search --model llama-3.1-70b --hardware h100-sxm --gpus 8 --slo 'p99_ttft_ms<=2000' --workload serve-chat-c32-i1k-o256-v1"
    lines = shell_lines(command)
    assert len(lines) > 1 and all(len(line) <= WIDTH for line in lines)
    assert " ".join(lines) == command and all(not line.startswith(("'", "h100")) for line in lines)  # options keep their values
