"""Cut a time window out of large log files."""

import argparse
import os
import sys
import tomllib
from pathlib import Path

DEFAULTS_FILE = Path(os.environ.get("LOGSLICE_DEFAULTS", Path(__file__).with_name("defaults.toml")))


def load_defaults(path=DEFAULTS_FILE):
    """Site-wide defaults; editing defaults.toml changes them without a release."""
    with open(path, "rb") as f:
        return tomllib.load(f)


def build_parser(defaults):
    p = argparse.ArgumentParser(prog="logslice", description=__doc__)
    p.add_argument("files", nargs="+", help="log files to read")
    p.add_argument("-s", "--since", help="start of the window, ISO 8601")
    p.add_argument("-u", "--until", help="end of the window, ISO 8601")
    p.add_argument("-f", "--format", choices=["auto", "syslog", "json", "clf"], default=defaults["format"],
                   help="input log format")
    p.add_argument("--tz", default=defaults["timezone"], help="time zone for timestamps that carry none")
    p.add_argument("-o", "--output", default="-", help="file to write the slice to, - for standard output")
    p.add_argument("--max-lines", type=int, default=defaults["max_lines"],
                   help="stop after this many lines, 0 for no limit")
    p.add_argument("-q", "--quiet", action="store_true", help="do not report skipped lines")
    p.add_argument("--encoding", default="utf-8", help="encoding of the input files")
    return p


def main(argv=None):
    args = build_parser(load_defaults()).parse_args(argv)
    print(args, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
