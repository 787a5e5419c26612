"""Command-line flags generated from an options dataclass.

A job's options are one dataclass: its fields are what the job function takes, and the same
fields become the flags of `g2w <job>` and of `python -m ray_jobs.<job>`, so names and defaults
cannot drift between the command line, the Ray entry points and Python callers.

A field becomes `--field-name` (`type` from its default, `store_true` for a False default,
required when it has no default); `option(...)` in its metadata changes that: a help text, a
parser `type`, `choices`, `nargs`, a `metavar`, another flag name, aliases, or a positional
argument. Config dataclasses of library layers, which carry no command-line text, pass their help
texts, aliases and choices to `add_flags` instead.
"""

from __future__ import annotations

import argparse
from dataclasses import MISSING, Field, fields

_KEY = "g2w_option"


def option(
    help: str | None = None,
    *,
    type=None,
    choices=None,
    nargs=None,
    metavar: str | None = None,
    flag: str | None = None,
    aliases: tuple[str, ...] = (),
    positional: bool = False,
) -> dict:
    """Field metadata: `field(default=..., metadata=option("what it does", type=positive(int)))`."""
    spec = {
        "help": help,
        "type": type,
        "choices": choices,
        "nargs": nargs,
        "metavar": metavar,
        "flag": flag,
        "aliases": tuple(aliases),
        "positional": positional,
    }
    return {_KEY: {k: v for k, v in spec.items() if v not in (None, ())}}


def positive(kind):
    """An argparse type: `kind(text)`, refused unless above zero."""

    def parse(text: str):
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text}")
        return value

    return parse


def flag_name(name: str) -> str:
    return "--" + name.replace("_", "-")


def _default(f: Field, defaults):
    if defaults is not None:
        return getattr(defaults, f.name)
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    return MISSING


def add_flags(
    parser,
    cls,
    *,
    defaults=None,
    helps: dict[str, str] | None = None,
    aliases: dict[str, list[str]] | None = None,
    choices: dict[str, list] | None = None,
    skip: tuple[str, ...] = (),
) -> None:
    """Add one argument per field of dataclass `cls` to `parser` (an ArgumentParser or a group).
    `defaults`: an instance whose values are the defaults (default: the fields' own)."""
    for f in fields(cls):
        if f.name in skip:
            continue
        spec = f.metadata.get(_KEY, {})
        default = _default(f, defaults)
        text = spec.get("help") or (helps or {}).get(f.name) or f.name.replace("_", " ")
        if default not in (MISSING, None, False):
            text += f" (default: {' '.join(map(str, default)) if isinstance(default, list) else default})"
        kwargs = {"help": text}
        for key in ("choices", "nargs", "metavar"):
            if key in spec:
                kwargs[key] = spec[key]
        if f.name in (choices or {}):
            kwargs["choices"] = choices[f.name]
        if isinstance(default, bool):
            kwargs["action"] = "store_true" if not default else argparse.BooleanOptionalAction
        else:
            kwargs["type"] = spec.get("type") or (type(default) if default not in (MISSING, None) else str)
            if isinstance(default, list):
                kwargs["type"] = spec.get("type") or (type(default[0]) if default else str)
        if spec.get("positional"):
            parser.add_argument(f.name, **kwargs, **({} if default is MISSING else {"default": default}))
            continue
        names = [spec.get("flag") or flag_name(f.name), *spec.get("aliases", ()), *(aliases or {}).get(f.name, [])]
        if default is MISSING:
            kwargs["required"] = True
        else:
            kwargs["default"] = default
        parser.add_argument(*names, dest=f.name, **kwargs)


def from_args(cls, args: argparse.Namespace, skip: tuple[str, ...] = (), **values):
    """An instance of `cls` from parsed `args` (fields in `skip` left to their defaults or `values`)."""
    chosen = {f.name: getattr(args, f.name) for f in fields(cls) if f.name not in skip and f.name not in values}
    return cls(**chosen, **values)


def add_stall_flag(parser, default: str = "G2W_STAGE_STALL_S, else Ray Data's own 30 min") -> None:
    """`--stall-s` of a command that runs a Ray Data job: one flag, spelled and checked alike on
    every such command (`g2w.runtime.watchdog` turns it into the job's stall time)."""
    parser.add_argument(
        "--stall-s",
        type=positive(float),
        default=None,
        metavar="S",
        help=f"fail the job, naming the stage, once no stage moved for S seconds (default {default})",
    )
