#!/bin/bash
set -euo pipefail
cd /app
python3 - <<'PY'
import re, tomllib

release = tomllib.load(open("release/next.toml", "rb"))
text = open("history/commits.txt").read()
commits = []
for block in re.split(r"(?m)^commit ", text)[1:]:
    sha = block.split()[0]
    body = [l.strip() for l in block.splitlines()[1:] if l.startswith("    ")]
    commits.append({"sha": sha, "subject": body[0], "body": body[1:]})

reverted = set()
for c in commits:
    m = re.match(r'Revert "', c["subject"])
    if m:
        reverted.add(c["sha"])
        for line in c["body"]:
            r = re.match(r"This reverts commit (\w+)", line)
            if r:
                reverted.add(r.group(1))

sections = {"Breaking changes": [], "Added": [], "Fixed": [], "Changed": []}
kind = {"feat": "Added", "fix": "Fixed", "perf": "Changed", "refactor": "Changed"}
breaking_any = feat_any = False
for c in commits:
    if c["sha"] in reverted:
        continue
    m = re.match(r"(\w+)(?:\(([^)]+)\))?(!)?: (.*)", c["subject"])
    if not m:
        continue
    ctype, scope, bang, desc = m.groups()
    footer = [l[len("BREAKING CHANGE: "):] for l in c["body"] if l.startswith("BREAKING CHANGE: ")]
    breaking = bool(bang or footer)
    text = footer[0] if footer else desc
    entry = (f"- **{scope}:** " if scope else "- ") + f"{text} ({c['sha']})"
    if breaking:
        breaking_any = True
        sections["Breaking changes"].append(entry)
    elif ctype in kind:
        sections[kind[ctype]].append(entry)
    feat_any = feat_any or ctype == "feat"

prev = tomllib.load(open("pyproject.toml", "rb"))["project"]["version"]
major, minor, patch = map(int, prev.split("."))
if breaking_any:
    new = f"{major + 1}.0.0"
elif feat_any:
    new = f"{major}.{minor + 1}.0"
else:
    new = f"{major}.{minor}.{patch + 1}"

block = [f"## {new} - {release['date']}", ""]
for title, entries in sections.items():
    if entries:
        block += [f"### {title}"] + entries + [""]
log = open("CHANGELOG.md").read()
log = log.replace("# Changelog\n\n", "# Changelog\n\n" + "\n".join(block) + "\n", 1)
open("CHANGELOG.md", "w").write(log)

py = open("pyproject.toml").read()
open("pyproject.toml", "w").write(py.replace(f'version = "{prev}"', f'version = "{new}"', 1))
PY
