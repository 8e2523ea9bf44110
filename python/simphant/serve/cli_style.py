"""The command lines of `simphant serve` and `simphant view` in the style of the C++
`simphant` CLI (CLI11; src/simphant/cli/main.cpp): the same help layout, the same
error lines, the same log-level names and the same typo hints
(src/simphant/cli/typo_hint.cpp), so that the Python subcommands read like the others.

    Usage: simphant view [OPTIONS] results

    Positionals:
      results TEXT                The run's HDF5 file

    Options:
      -h,--help                   Print this help message and exit
      --port INT:INT in [0 - 65535]
                                  Port ...

A bad command line prints CLI11's message, "Run with --help for more information." and,
for an option name that is close to a known one, "'--prot' is not an option of 'serve';
did you mean '--port'?" on stderr, and exits 2 (README "Exit codes").
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import Callable, Dict, List, NoReturn, Optional, Sequence

from .. import _simphant

#: The level names of `simphant --log-level` (src/simphant/log/log.cpp), in its order.
LOG_LEVELS = ("trace", "debug", "info", "warn", "warning", "error", "critical", "off")
#: uvicorn's (and Python logging's) level of each name; "off": above critical.
_UVICORN_LEVELS: Dict[str, object] = {"trace": "trace", "debug": "debug", "info": "info", "warn": "warning",
                                      "warning": "warning", "error": "error", "critical": "critical",
                                      "off": logging.CRITICAL + 10}
#: CLI11's column of the option descriptions.
_COLUMN = 30


def uvicorn_level(name: str) -> object:
    """The uvicorn log_level of a `--log-level` name (LOG_LEVELS)."""
    return _UVICORN_LEVELS[name]


def default_log_level(fallback: str) -> str:
    """SIMPHANT_LOG_LEVEL when it names a level (as the C++ logger reads it), else fallback."""
    env = os.environ.get("SIMPHANT_LOG_LEVEL", "")
    return env if env in LOG_LEVELS else fallback


#: The command line's typo rule (src/simphant/core/nearest_name.hpp): the optimal string
#: alignment distance, and the first candidate within max(1, len(word) // 3) edits or "".
edit_distance: Callable[[str, str], int] = _simphant.edit_distance
nearest_name: Callable[[str, Sequence[str]], str] = _simphant.nearest_name


def int_range(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse type: an integer in [lo, hi], refused in CLI11's words (CLI::Range)."""
    def parse(text: str) -> int:
        try:
            v = int(text, 10)
        except ValueError:
            v = None
        if v is None or not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"Value {text} not in range {lo} to {hi}")
        return v
    parse.cli11_type = f"INT:INT in [{lo} - {hi}]"  # type: ignore[attr-defined]
    return parse


def member(names: Sequence[str]) -> Callable[[str], str]:
    """An argparse type: one of `names`, refused in CLI11's words (CLI::IsMember)."""
    def parse(text: str) -> str:
        if text not in names:
            raise argparse.ArgumentTypeError(f"{text} not in {{{','.join(names)}}}")
        return text
    parse.cli11_type = f"TEXT:{{{','.join(names)}}}"  # type: ignore[attr-defined]
    return parse


class CliParser(argparse.ArgumentParser):
    """argparse with CLI11's help layout and error lines (see the module docstring).
    `prog` is the command as typed ("simphant serve"); its last word names the
    subcommand in typo hints. Options are never abbreviated (CLI11 does not)."""

    def __init__(self, prog: str, description: str) -> None:
        super().__init__(prog=prog, description=description, allow_abbrev=False, add_help=False)
        self.add_argument("-h", "--help", action="help", help="Print this help message and exit")
        self._argv: List[str] = []

    # -- help ------------------------------------------------------------------------
    @staticmethod
    def _type_name(a: argparse.Action) -> str:
        if a.nargs == 0:
            return ""
        return getattr(a.type, "cli11_type", {int: "INT", float: "FLOAT"}.get(a.type, "TEXT"))  # type: ignore

    @staticmethod
    def _line(name: str, text: Optional[str]) -> str:
        left = "  " + name
        if not text:
            return left + "\n"
        if len(left) >= _COLUMN:
            return left + "\n" + " " * _COLUMN + text + "\n"
        return left.ljust(_COLUMN) + text + "\n"

    def format_usage(self) -> str:
        positionals = [a.dest for a in self._actions if not a.option_strings]
        return "Usage: " + " ".join([self.prog, "[OPTIONS]", *positionals]) + "\n"

    def format_help(self) -> str:
        out = [(self.description or "") + "\n", self.format_usage()]
        positionals = [a for a in self._actions if not a.option_strings]
        options = [a for a in self._actions if a.option_strings]
        if positionals:
            out.append("\nPositionals:\n")
            for a in positionals:
                out.append(self._line(f"{a.dest} {self._type_name(a)}".rstrip(), a.help))
        out.append("\nOptions:\n")
        for a in options:
            name = ",".join(a.option_strings)
            out.append(self._line(f"{name} {self._type_name(a)}".rstrip(), a.help))
        return "".join(out)

    def print_usage(self, file=None) -> None:  # argparse's usage line precedes no error here
        pass

    # -- errors ----------------------------------------------------------------------
    def parse_args(self, args: Optional[Sequence[str]] = None, namespace=None):  # type: ignore[override]
        self._argv = list(sys.argv[1:] if args is None else args)
        ns, extras = self.parse_known_args(self._argv, namespace)
        if extras:
            self.error(("The following argument was not expected: " if len(extras) == 1 else
                        "The following arguments were not expected: ") + " ".join(extras))
        return ns

    def _long_options(self) -> Dict[str, argparse.Action]:
        return {s: a for a in self._actions for s in a.option_strings if s.startswith("--")}

    def typo_hints(self, argv: Sequence[str]) -> List[str]:
        """typo_hint.cpp's hints for argv: an unknown "--name" close to a known option."""
        known = self._long_options()
        sub = self.prog.split()[-1]
        hints: List[str] = []
        k = 0
        while k < len(argv):
            arg = argv[k]
            k += 1
            if arg == "--":
                break
            if not arg.startswith("--") or len(arg) <= 2:
                continue
            name = arg.split("=", 1)[0]
            if name in known:
                if known[name].nargs != 0 and "=" not in arg:
                    k += 1  # its value
                continue
            near = nearest_name(name, list(known))
            if near:
                hints.append(f"'{name}' is not an option of '{sub}'; did you mean '{near}'?")
        return hints

    def error(self, message: str) -> NoReturn:
        """CLI11's lines for argparse's message, then the typo hints; exit 2."""
        message = self._cli11_message(message)
        lines = [message, "Run with --help for more information.", *self.typo_hints(self._argv)]
        self.exit(2, "\n".join(lines) + "\n")

    def _cli11_message(self, message: str) -> str:
        if message.startswith("the following arguments are required: "):
            names = message.split(": ", 1)[1].split(", ")
            return "\n".join(f"{n} is required" for n in names)
        if message.startswith("argument "):  # "argument --port: <why>"
            head, _, why = message[len("argument "):].partition(": ")
            opt = head.split("/")[-1]
            action = self._long_options().get(opt)
            if why.startswith("expected one argument") and action is not None:
                return f"{opt}: 1 required {self._type_name(action)} missing"
            if why.startswith("ignored explicit argument"):  # --flag=value
                return f"{opt}: the flag takes no value ({why.split(' ', 3)[-1]})"
            return f"{opt}: {why}"
        return message
