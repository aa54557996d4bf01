#!/bin/bash
set -euo pipefail
cd /app
python3 - <<'PY'
import argparse, re, sys
sys.path.insert(0, ".")
from logslice import cli

parser = cli.build_parser(cli.load_defaults())
rows = []
for action in parser._actions:
    if not action.option_strings or isinstance(action, argparse._HelpAction):
        continue
    long = [o for o in action.option_strings if o.startswith("--")][0]
    short = [o for o in action.option_strings if not o.startswith("--")]
    if isinstance(action, argparse._StoreTrueAction):
        default = "off"
    elif action.default is None:
        default = ""
    else:
        default = f"`{action.default}`"
    text = action.help[0].upper() + action.help[1:]
    text = text if text.endswith(".") else text + "."
    rows.append((long, f"`{short[0]}`" if short else "", default, text))
rows.sort()
table = ["| Option | Short | Default | Description |", "| --- | --- | --- | --- |"]
table += [f"| `{l}` | {s} | {d} | {t} |" for l, s, d, t in rows]

readme = open("README.md").read()
readme = re.sub(r"(<!-- options:start -->\n).*?(<!-- options:end -->)",
                lambda m: m.group(1) + "\n".join(table) + "\n" + m.group(2), readme, flags=re.S)
readme = readme.replace("- `LOGSLICE_CONFIG`: path of an alternative configuration file.",
                        "- `LOGSLICE_DEFAULTS`: path of the defaults file to use instead of `logslice/defaults.toml`.")
open("README.md", "w").write(readme)
PY
