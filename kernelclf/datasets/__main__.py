"""Command line: ``python -m kernelclf.datasets {list,fetch,info} ...``.

Book chapter 01 (``book/01_introduction.md``).

    python -m kernelclf.datasets list [--data-home DIR]
    python -m kernelclf.datasets fetch NAME [--data-home DIR] [--source URL]
                                            [--skip-source-checksum] [--force]
    python -m kernelclf.datasets info NAME
"""
from __future__ import annotations

import argparse
import sys

from ._convert import ManualFetchRequired, fetch
from ._registry import ENV_VAR, ChecksumError, data_home, dataset_names, get_spec, status


def _parser():
    p = argparse.ArgumentParser(prog="python -m kernelclf.datasets",
                                description="List and fetch the data sets of kernelclf.")
    sub = p.add_subparsers(dest="command", required=True)
    pl = sub.add_parser("list", help="names and whether each is present in the data home")
    pl.add_argument("--data-home", default=None)
    pf = sub.add_parser("fetch", help="download the original, convert it, write it")
    pf.add_argument("name", choices=dataset_names(), metavar="NAME")
    pf.add_argument("--data-home", default=None, help=f"default: ${ENV_VAR} or ~/.cache/kernelclf")
    pf.add_argument("--source", default=None,
                    help="replacement URL (file for single-file sources, base folder otherwise); "
                         "file:// works")
    pf.add_argument("--skip-source-checksum", action="store_true",
                    help="do not check the original against its recorded checksum")
    pf.add_argument("--force", action="store_true", help="overwrite existing files")
    pi = sub.add_parser("info", help="source, files and fetch method of one data set")
    pi.add_argument("name", choices=dataset_names(), metavar="NAME")
    return p


def main(argv=None, out=None):
    """Run the command line; returns the exit status (0 ok, 1 error, 2 manual steps needed)."""
    out = out or sys.stdout
    args = _parser().parse_args(argv)

    def say(msg):
        print(msg, file=out)

    if args.command == "list":
        home = data_home(args.data_home)
        say(f"data home: {home}")
        for name in dataset_names():
            spec = get_spec(name)
            how = "fetch" if spec.recipe.converter else "manual"
            say(f"  {name:15s} {status(name, home):8s} ({how})  {spec.description}")
        return 0
    if args.command == "info":
        spec = get_spec(args.name)
        say(f"{spec.name}: {spec.description}")
        say(f"  files: {', '.join(spec.folder + '/' + f for f, _ in spec.files)}")
        for f, sha in spec.files:
            say(f"  sha256 {f}: {sha}")
        say(f"  original: {spec.original}")
        say(f"  fetch source: {spec.source_url}")
        if spec.recipe.note:
            say(f"  note: {spec.recipe.note}")
        if spec.recipe.converter is None:
            say("  fetch: manual steps (run `fetch` to print them)")
        return 0
    try:
        fetch(args.name, data_home=args.data_home, source=args.source,
              verify_source=not args.skip_source_checksum, force=args.force, log=say)
    except ManualFetchRequired as exc:
        say(str(exc))
        return 2
    except (ChecksumError, OSError, ValueError) as exc:
        say(f"fetch {args.name} failed: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
