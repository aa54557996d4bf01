"""Rubric for the mdpress release changelog; the expected entries are derived from the original commit log."""
import os
import re
import sys
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import Rubric, app, fixture, read_text, unchanged  # noqa: E402

DATE = tomllib.loads(read_text(fixture("release/next.toml")))["date"]
COMMITS = []
for block in re.split(r"(?m)^commit ", read_text(fixture("history/commits.txt")))[1:]:
    lines = [l.strip() for l in block.splitlines()[1:] if l.startswith("    ")]
    COMMITS.append((block.split()[0], lines[0], lines[1:]))
REVERTED = {sha for sha, subj, _ in COMMITS if subj.startswith("Revert")}
REVERTED |= {m.group(1) for _, subj, body in COMMITS if subj.startswith("Revert")
             for l in body for m in [re.match(r"This reverts commit (\w+)", l)] if m}
WANT = {"Breaking changes": [], "Added": [], "Fixed": [], "Changed": []}
for sha, subj, body in COMMITS:
    m = re.match(r"(\w+)(?:\(([^)]+)\))?(!)?: (.*)", subj)
    if sha in REVERTED or not m:
        continue
    ctype, scope, bang, desc = m.groups()
    footer = [l[17:] for l in body if l.startswith("BREAKING CHANGE: ")]
    entry = (f"- **{scope}:** " if scope else "- ") + f"{footer[0] if footer else desc} ({sha})"
    if bang or footer:
        WANT["Breaking changes"].append(entry)
    elif ctype in ("feat", "fix", "perf", "refactor"):
        WANT[{"feat": "Added", "fix": "Fixed"}.get(ctype, "Changed")].append(entry)
NEW = "2.0.0"  # a breaking change after 1.7.2
rubric = Rubric()


def new_section():
    text = read_text(app("CHANGELOG.md"))
    m = re.search(rf"(?ms)^## {re.escape(NEW)} - {DATE}\n(.*?)(?=^## |\Z)", text)
    return m.group(1)


def sub(name):
    m = re.search(rf"(?ms)^### {name}\n(.*?)(?=^### |\Z)", new_section())
    return [l.strip() for l in m.group(1).splitlines() if l.strip()] if m else None


@rubric.item("release_heading_on_top")
def _():
    headings = re.findall(r"(?m)^## .*$", read_text(app("CHANGELOG.md")))
    return headings[:2] == [f"## {NEW} - {DATE}", "## 1.7.2 - 2024-09-30"]


@rubric.item("subsection_order")
def _():
    return re.findall(r"(?m)^### (.*?)\s*$", new_section()) == [k for k, v in WANT.items() if v]


@rubric.item("breaking_changes")
def _():
    return sub("Breaking changes") == WANT["Breaking changes"]


@rubric.item("added_without_reverted")
def _():
    return sub("Added") == WANT["Added"]


@rubric.item("fixed_newest_first")
def _():
    return sub("Fixed") == WANT["Fixed"]


@rubric.item("changed_from_perf")
def _():
    return sub("Changed") == WANT["Changed"]


@rubric.item("unlisted_types_left_out")
def _():
    section = new_section()
    listed = set(re.findall(r"\((\w{7})\)\s*$", section, re.M))
    allowed = {e.rsplit("(", 1)[1].rstrip(")") for v in WANT.values() for e in v}
    return bool(listed) and listed <= allowed


@rubric.item("pyproject_version")
def _():
    got = tomllib.loads(read_text(app("pyproject.toml")))
    want = tomllib.loads(read_text(fixture("pyproject.toml")))
    want["project"]["version"] = NEW
    return got == want


@rubric.item("history_and_inputs_unchanged")
def _():
    text, orig = read_text(app("CHANGELOG.md")), read_text(fixture("CHANGELOG.md"))
    return text != orig and text.split("## 1.7.2 - 2024-09-30", 1)[1] == orig.split("## 1.7.2 - 2024-09-30", 1)[1] \
        and unchanged("history/commits.txt", "release/next.toml", "CONTRIBUTING.md")


rubric.run()
