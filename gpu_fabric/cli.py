"""`gpu-fabric`: the repository's commands under one name, with the exit codes each documents.

    gpu-fabric plan a3-prod            gpu-fabric nccl-judge saved.log --stack a3-prod
    gpu-fabric <command> --help        every option of one command

Each command is a module of the checkout with its own options (`argparse`, one place per option);
this group names them, passes the arguments on unchanged and exits with the command's own status.
make cannot do that: a recipe that fails makes `make` itself exit 2 (GNU make manual, "Errors in
Recipes"), so `make nccl-judge` says 2 for a log below its threshold; `gpu-fabric nccl-judge`: 1.

Exit codes: each command's own (listed by `gpu-fabric --help`); 3 for a failure of gpu-fabric
itself (its traceback is printed: a bug to report), never 1, which some commands use for a verdict.

The commands plan, check and draw the stack files of a checkout (its `stacks/`, `offline/`,
`verify/`, `bench/`): they run from inside one, or from the checkout an editable install
(`pip install -e .`, what requirements-dev.txt does) was made from.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

import click

BUG = 3
"""Exit status of a failure of gpu-fabric itself."""


@dataclass(frozen=True)
class Command:
    module: str
    """The checkout's module whose `main(argv) -> int` runs it."""
    summary: str
    exits: str
    """What each exit status means."""


COMMANDS = {
    "plan": Command(
        "offline.plan",
        "Plan a stack offline under Pulumi mocks: its resource tree, build/plan/<stack>.json.",
        "0 planned, 2 the stack's config is refused (each key, value and fix) or has no file",
    ),
    "diff": Command(
        "offline.diff",
        "Compare the plans of every stack at a git revision and in this tree.",
        "0 compared, 1 a plan failed (in the report), 2 the revision or plan files are unreadable",
    ),
    "graph": Command(
        "offline.graph",
        "Draw a stack's dependency graph (Mermaid, DOT; SVG/PNG with Graphviz).",
        "0 drawn, 2 the stack's config is refused",
    ),
    "verify": Command(
        "verify.__main__",
        "Check a deployed fabric in its cluster (or run its NCCL test with --bandwidth).",
        "0 healthy, 1 something missing or wrong (listed), 2 config or cluster unreadable",
    ),
    "nccl-judge": Command(
        "verify.nccl_judge",
        "Judge a saved nccl-tests log against the catalog's threshold or --min-busbw.",
        "0 meets, 1 below the threshold or wrong results, 2 log unreadable or bad argument",
    ),
    "scan": Command(
        "offline.scan",
        "checkov over every Kubernetes object the stacks render (--checkov PATH).",
        "0 no unwaived finding, 1 a finding (listed), 2 checkov cannot run",
    ),
    "bench": Command(
        "bench.plan_bench",
        "Estimated `pulumi up` critical path, offline plan speed and growth per stack.",
        "0 measured",
    ),
}


def checkout_root(start: Path | None = None) -> Path | None:
    """The gpu-fabric checkout the commands run in: the nearest directory from `start` (the
    working directory) up that holds the commands' modules, else the checkout of this package
    (an editable install); None when neither is one."""
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents, Path(__file__).resolve().parent.parent):
        if (candidate / "offline" / "engine.py").is_file() and (
            candidate / "Pulumi.yaml"
        ).is_file():
            return candidate
    return None


def run(name: str, argv: list[str]) -> int:
    """Run command `name` with `argv`; its exit status."""
    command = COMMANDS[name]
    root = checkout_root()
    if root is None:
        click.echo(
            f"gpu-fabric {name}: runs in a gpu-fabric checkout (it reads the checkout's stacks/ "
            f"and {command.module.split('.')[0]}/); cd into one, or install the package from "
            "one with `pip install -e <checkout>`",
            err=True,
        )
        return 2
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    program, sys.argv[0] = sys.argv[0], f"gpu-fabric {name}"  # argparse's usage line names it
    try:
        return int(importlib.import_module(command.module).main(argv) or 0)
    except SystemExit as done:  # argparse: --help (0) and a bad argument (2)
        return done.code if isinstance(done.code, int) else 2
    except KeyboardInterrupt:
        return 130
    except Exception:
        traceback.print_exc()
        click.echo(
            f"gpu-fabric {name}: failed inside gpu-fabric (exit {BUG}): a bug, please report it "
            "with the output above",
            err=True,
        )
        return BUG
    finally:
        sys.argv[0] = program


def _command(name: str, command: Command) -> click.Command:
    @click.command(
        name=name,
        help=f"{command.summary}\n\nExit: {command.exits}. Options: gpu-fabric {name} --help.",
        short_help=f"{command.summary} Exit {command.exits}.",
        context_settings={"ignore_unknown_options": True, "help_option_names": []},
        add_help_option=False,
    )
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def forward(args: tuple[str, ...]) -> None:
        sys.exit(run(name, list(args)))

    return forward


@click.group(
    help=__doc__.split("\n\n")[0]
    + f" Exit {BUG}: a failure of gpu-fabric itself (a bug; its traceback is printed).",
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(package_name="gpu-fabric")
def main() -> None:
    """The `gpu-fabric` console command (pyproject.toml, `[project.scripts]`)."""


for _name, _spec in COMMANDS.items():
    main.add_command(_command(_name, _spec))
