"""`simphant serve` and `simphant view` speak the C++ CLI's command-line style
(simphant.serve.cli_style): CLI11's help layout, its error lines and exit code 2, the
log-level names of `simphant --log-level`, and the typo hints of
src/simphant/cli/typo_hint.cpp, through the Python modules and through the C++ launcher."""
from __future__ import annotations

import re
import subprocess

import pytest

from conftest import python_env

from simphant.serve import cli_style  # noqa: E402
from simphant.serve.__main__ import _parser as serve_parser, main as serve_main  # noqa: E402
from simphant.serve.view import _parser as view_parser, main as view_main  # noqa: E402



def cli_log_levels(cli):
    """The level names `simphant --help` lists for --log-level."""
    out = subprocess.run([cli, "--help"], capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"--log-level TEXT:\{([^}]*)\}", out)
    assert m, out
    return m.group(1).split(",")


def test_log_level_names_are_the_cli_ones(cli):
    assert list(cli_style.LOG_LEVELS) == cli_log_levels(cli)
    for parser in (serve_parser(), view_parser()):
        help_text = parser.format_help()
        assert "--log-level TEXT:{" + ",".join(cli_log_levels(cli)) + "}" in help_text
    for name in cli_style.LOG_LEVELS:
        assert cli_style.uvicorn_level(name) is not None


def test_help_has_the_cli11_layout(cli):
    ref = subprocess.run([cli, "bench", "--help"], capture_output=True, text=True, timeout=60).stdout
    ref_lines = ref.splitlines()
    assert ref_lines[1].startswith("Usage: simphant bench [OPTIONS]") and ref_lines[3] == "Options:"
    assert "  -h,--help                   Print this help message and exit" in ref_lines
    for parser, usage in ((serve_parser(), "Usage: simphant serve [OPTIONS]"),
                          (view_parser(), "Usage: simphant view [OPTIONS] results")):
        lines = parser.format_help().splitlines()
        assert lines[1] == usage
        assert "Options:" in lines and "  -h,--help                   Print this help message and exit" in lines
        for line in lines[lines.index("Options:") + 1:]:
            # a name column of 30 characters, or the name alone with the text on the next line
            assert line.startswith("  ") and (line[30:31] != " " or line.strip() == line[2:].rstrip()), line
    view = view_parser().format_help()
    assert "Positionals:\n  results TEXT                The run's HDF5 file\n" in view
    assert "  --port INT:INT in [0 - 65535]\n                              Port" in view


@pytest.mark.parametrize("argv, lines", [
    (["--prot", "3"], ["The following arguments were not expected: --prot 3",
                       "Run with --help for more information.",
                       "'--prot' is not an option of 'serve'; did you mean '--port'?"]),
    (["--log-levl", "debug"], ["The following arguments were not expected: --log-levl debug",
                               "Run with --help for more information.",
                               "'--log-levl' is not an option of 'serve'; did you mean '--log-level'?"]),
    (["--log-level", "verbose"], ["--log-level: verbose not in {trace,debug,info,warn,warning,error,critical,off}",
                                  "Run with --help for more information."]),
    (["--port", "70000"], ["--port: Value 70000 not in range 0 to 65535", "Run with --help for more information."]),
    (["--port", "abc"], ["--port: Value abc not in range 0 to 65535", "Run with --help for more information."]),
    (["--workers", "-1"], ["--workers: Value -1 not in range 0 to 4096", "Run with --help for more information."]),
    (["--port"], ["--port: 1 required INT:INT in [0 - 65535] missing", "Run with --help for more information."]),
    (["--xyzzy-frobnicate"], ["The following argument was not expected: --xyzzy-frobnicate",
                              "Run with --help for more information."]),  # nothing near: no hint
    (["--conf=x.json"], ["The following argument was not expected: --conf=x.json",
                         "Run with --help for more information.",
                         "'--conf' is not an option of 'serve'; did you mean '--config'?"]),
])
def test_serve_errors_are_the_cli_ones(argv, lines, capsys):
    assert serve_main(argv) == 2
    cap = capsys.readouterr()
    assert cap.err.splitlines() == lines and cap.out == ""


def test_view_errors_are_the_cli_ones(capsys):
    assert view_main([]) == 2
    assert capsys.readouterr().err.splitlines() == ["results is required", "Run with --help for more information."]
    assert view_main(["run.h5", "--no-browsr"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "The following argument was not expected: --no-browsr", "Run with --help for more information.",
        "'--no-browsr' is not an option of 'view'; did you mean '--no-browser'?"]
    assert view_main(["run.h5", "--port", "8050", "--hots", "::1"]) == 2  # the value of --port is no option
    assert capsys.readouterr().err.splitlines()[-1] == "'--hots' is not an option of 'view'; did you mean '--host'?"
    assert view_main(["--no-browser", "--help"]) == 0
    assert capsys.readouterr().out.startswith("The 3D replay")


def test_options_are_not_abbreviated(capsys):
    assert view_main(["run.h5", "--no-b"]) == 2  # CLI11 takes no abbreviations; argparse would
    assert "The following argument was not expected: --no-b" in capsys.readouterr().err


def test_nearest_name_is_the_cli_rule():
    # within max(1, len / 3) edits, transpositions counting one, first best kept
    assert cli_style.edit_distance("--prot", "--port") == 1
    assert cli_style.edit_distance("kitten", "sitting") == 3
    assert cli_style.nearest_name("--prot", ["--host", "--port"]) == "--port"
    assert cli_style.nearest_name("--xx", ["--port"]) == ""
    assert cli_style.nearest_name("--hots", ["--host", "--hot"]) == "--host"  # both 1 edit: the first


def test_the_cli_launcher_passes_the_style_through(cli):
    r = subprocess.run([cli, "serve", "--prot", "1"], capture_output=True, text=True, timeout=120, env=python_env())
    assert r.returncode == 2
    assert r.stderr.splitlines()[-1] == "'--prot' is not an option of 'serve'; did you mean '--port'?"
    r = subprocess.run([cli, "view", "--help"], capture_output=True, text=True, timeout=120, env=python_env())
    assert r.returncode == 0 and "\nUsage: simphant view [OPTIONS] results\n" in r.stdout
    # the C++ CLI's own answer to a typo, for comparison: the same lines
    r = subprocess.run([cli, "run", "--log-levl", "info"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.splitlines()[-2:] == [
        "Run with --help for more information.", "'--log-levl' is not an option of 'run'; did you mean '--log-level'?"]


def test_log_level_default_follows_the_environment(monkeypatch):
    monkeypatch.setenv("SIMPHANT_LOG_LEVEL", "debug")
    assert serve_parser().parse_args([]).log_level == "debug"
    assert view_parser().parse_args(["x.h5"]).log_level == "debug"
    monkeypatch.setenv("SIMPHANT_LOG_LEVEL", "loud")  # unknown: the default, as the C++ logger does
    assert serve_parser().parse_args([]).log_level == "info"
    assert view_parser().parse_args(["x.h5"]).log_level == "warn"


def test_log_level_before_the_subcommand_reaches_the_module(cli, tmp_path):
    """`simphant --log-level L serve` hands L to the Python command as its default
    (SIMPHANT_LOG_LEVEL): seen by an interpreter that prints what it was given."""
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho \"level=${SIMPHANT_LOG_LEVEL:-unset}\"\n")
    fake.chmod(0o755)
    env = dict(python_env(), SIMPHANT_PYTHON=str(fake))
    env.pop("SIMPHANT_LOG_LEVEL", None)
    for argv, level in ((["--log-level", "debug", "serve"], "debug"), (["view", "x.h5"], "unset"),
                        (["--log-level", "error", "view", "x.h5"], "error")):
        r = subprocess.run([cli, *argv], capture_output=True, text=True, timeout=60, env=env)
        assert r.returncode == 0 and r.stdout.strip() == f"level={level}", (argv, r.stdout, r.stderr)
