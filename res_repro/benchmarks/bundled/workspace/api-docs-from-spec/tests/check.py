"""Rubric for the API reference update: expectations are derived from the original spec and reference."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import Rubric, app, fixture, read_text, unchanged  # noqa: E402

ORDER = ["GET", "POST", "PUT", "PATCH", "DELETE"]
SPEC = json.loads(read_text(fixture("api/openapi.json")))
OPS = sorted(((m.upper(), p, op) for p, item in SPEC["paths"].items() for m, op in item.items()),
             key=lambda t: (t[1], ORDER.index(t[0])))
ACTIVE = [(m, p) for m, p, op in OPS if not op.get("deprecated")]
DEPRECATED = [(m, p) for m, p, op in OPS if op.get("deprecated")]
OP = {(m, p): op for m, p, op in OPS}
OLD = read_text(fixture("docs/api.md"))
OLD_OPS = set(re.findall(r"(?m)^### (\w+) (\S+)$", OLD))
rubric = Rubric()


def doc():
    return read_text(app("docs/api.md"))


def parts():
    text = doc()
    endpoints = text.split("\n## Endpoints\n", 1)[1]
    active, deprecated = endpoints.split("\n## Deprecated\n", 1)
    return active, deprecated


def sections(text):
    """{(METHOD, path): [non-empty body lines]} in document order."""
    chunks = re.split(r"(?m)^### (\w+) (\S+)[ \t]*$", text)
    out = {}
    for i in range(1, len(chunks), 3):
        out[(chunks[i], chunks[i + 1])] = [l.strip() for l in chunks[i + 2].splitlines() if l.strip()]
    return out


def param_lines(op):
    params = op.get("parameters", [])
    if not params:
        return ["Parameters: none"]
    return [["Name", "In", "Type", "Required"]] + [
        [p["name"], p["in"], p["schema"]["type"], "yes" if p.get("required") else "no"] for p in params]


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


@rubric.item("title_and_version")
def _():
    lines = [l for l in doc().splitlines() if l.strip()]
    return lines[:3] == ["# Parcel API reference", f"Version: {SPEC['info']['version']}", "## Endpoints"]


@rubric.item("endpoint_set")
def _():
    return set(sections(parts()[0])) == set(ACTIVE)


@rubric.item("endpoint_order")
def _():
    return list(sections(parts()[0])) == ACTIVE


@rubric.item("summaries")
def _():
    secs = sections(parts()[0])
    return all(secs[k][0] == OP[k]["summary"] for k in ACTIVE)


@rubric.item("parameters")
def _():
    secs = sections(parts()[0])
    for k in ACTIVE:
        body = [l for l in secs[k] if l.startswith("|") or l.startswith("Parameters:")]
        want = param_lines(OP[k])
        if want == ["Parameters: none"]:
            if body != want:
                return False
        elif [cells(l) for l in body if not re.fullmatch(r"\|( *:?-+:? *\|)+", l)] != want:
            return False
    return True


@rubric.item("responses")
def _():
    secs = sections(parts()[0])
    return all([l for l in secs[k] if l.startswith("Responses:")] ==
               ["Responses: " + ", ".join(sorted(OP[k]["responses"], key=int))] for k in ACTIVE)


@rubric.item("deprecated_section")
def _():
    secs = sections(parts()[1])
    return list(secs) == DEPRECATED and all(
        secs[k] == [f"{OP[k]['summary']} Deprecated: use `{OP[k]['x-replaced-by']}`."] for k in DEPRECATED)


@rubric.item("removed_operations_gone")
def _():
    gone = OLD_OPS - set(OP)
    text = doc()
    return bool(gone) and not any(f"{m} {p}" in text for m, p in gone)


def unreleased():
    text = read_text(app("CHANGELOG.md"))
    return text.split("## [Unreleased]\n", 1)[1].split("\n## [", 1)[0]


def subsection(name):
    m = re.search(rf"(?ms)^### {name}\n(.*?)(?=^### |\Z)", unreleased())
    return [l.strip() for l in m.group(1).splitlines() if l.strip()] if m else None


def bullets(ops):
    return [f"- `{m} {p}`" for m, p in sorted(ops, key=lambda t: (t[1], ORDER.index(t[0])))]


@rubric.item("changelog_added")
def _():
    return subsection("Added") == bullets(set(OP) - OLD_OPS)


@rubric.item("changelog_deprecated_and_removed")
def _():
    headings = re.findall(r"(?m)^### (\w+)", unreleased())
    return headings == ["Added", "Deprecated", "Removed"] and subsection("Deprecated") == bullets(DEPRECATED) \
        and subsection("Removed") == bullets(OLD_OPS - set(OP))


@rubric.item("changelog_history_and_spec_unchanged")
def _():
    text, orig = read_text(app("CHANGELOG.md")), read_text(fixture("CHANGELOG.md"))
    return text != orig and text.split("## [2.0.3]", 1)[1] == orig.split("## [2.0.3]", 1)[1] \
        and unchanged("api/openapi.json", "docs/DOCS_GUIDE.md", "README.md")


rubric.run()
