"""Rubric for the logslice README: the expected options table is derived from the original cli.py."""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import FIXTURES, Rubric, app, fixture, read_text, unchanged  # noqa: E402

sys.path.insert(0, FIXTURES)
from logslice import cli  # noqa: E402  (the original code and defaults)

EXPECTED = {}
for action in cli.build_parser(cli.load_defaults(fixture("logslice/defaults.toml")))._actions:
    if not action.option_strings or isinstance(action, argparse._HelpAction):
        continue
    long = [o for o in action.option_strings if o.startswith("--")][0]
    short = [o for o in action.option_strings if not o.startswith("--")]
    default = "off" if isinstance(action, argparse._StoreTrueAction) else (
        "" if action.default is None else f"`{action.default}`")
    EXPECTED[long] = {"short": f"`{short[0]}`" if short else "", "default": default,
                      "description": action.help[0].upper() + action.help[1:] + "."}
rubric = Rubric()


def readme():
    return read_text(app("README.md"))


def table_lines():
    m = re.search(r"<!-- options:start -->\n(.*?)\n?<!-- options:end -->", readme(), re.S)
    return [l.strip() for l in m.group(1).splitlines() if l.strip()]


def rows():
    out = []
    for line in table_lines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        option = cells[0].strip("`")
        out.append((option, {"short": cells[1], "default": cells[2], "description": cells[3]}))
    return out


def field_ok(name, options=None):
    got = dict(rows())
    keys = options or list(EXPECTED)
    return all(got[o][name] == EXPECTED[o][name] for o in keys)


@rubric.item("table_header")
def _():
    lines = table_lines()
    return lines[0] == "| Option | Short | Default | Description |" and re.fullmatch(r"\|( *:?-+:? *\|){4}", lines[1]) is not None


@rubric.item("option_set")
def _():
    return sorted(o for o, _ in rows()) == sorted(EXPECTED)


@rubric.item("sorted_by_long_form")
def _():
    names = [o for o, _ in rows()]
    return names == sorted(names) and len(names) == len(EXPECTED)


@rubric.item("short_forms")
def _():
    return field_ok("short")


@rubric.item("defaults_from_code")
def _():
    return field_ok("default", ["--encoding", "--output", "--quiet", "--since", "--until"])


@rubric.item("defaults_from_defaults_toml")
def _():
    return field_ok("default", ["--format", "--tz", "--max-lines"])


@rubric.item("descriptions")
def _():
    return field_ok("description")


@rubric.item("environment_section")
def _():
    m = re.search(r"(?ms)^## Environment\n(.*?)(?=^## )", readme())
    bullets = [l for l in m.group(1).splitlines() if l.strip()]
    return len(bullets) == 1 and re.fullmatch(r"- `LOGSLICE_DEFAULTS`: .+\.", bullets[0].strip()) is not None


@rubric.item("rest_unchanged")
def _():
    def outside(text):
        text = re.sub(r"<!-- options:start -->.*?<!-- options:end -->", "", text, flags=re.S)
        return re.sub(r"(?ms)^## Environment\n.*?(?=^## )", "", text)
    return readme() != read_text(fixture("README.md")) and outside(readme()) == outside(read_text(fixture("README.md"))) \
        and unchanged("logslice/cli.py", "logslice/defaults.toml", "logslice/__init__.py", "docs/STYLE.md")


rubric.run()
