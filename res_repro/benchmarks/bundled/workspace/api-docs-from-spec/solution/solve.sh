#!/bin/bash
set -euo pipefail
cd /app
python3 - <<'PY'
import json, re

ORDER = ["get", "post", "put", "patch", "delete"]
spec = json.load(open("api/openapi.json"))
ops = []
for path in sorted(spec["paths"]):
    for method in sorted(spec["paths"][path], key=ORDER.index):
        ops.append((method.upper(), path, spec["paths"][path][method]))

def section(method, path, op):
    lines = [f"### {method} {path}", ""]
    if op.get("deprecated"):
        return lines + [f"{op['summary']} Deprecated: use `{op['x-replaced-by']}`.", ""]
    lines += [op["summary"], ""]
    params = op.get("parameters", [])
    if params:
        lines += ["| Name | In | Type | Required |", "| --- | --- | --- | --- |"]
        lines += [f"| {p['name']} | {p['in']} | {p['schema']['type']} | {'yes' if p.get('required') else 'no'} |" for p in params]
    else:
        lines.append("Parameters: none")
    codes = sorted(op["responses"], key=int)
    return lines + ["", "Responses: " + ", ".join(codes), ""]

old = open("docs/api.md").read()
old_active = re.findall(r"(?m)^### (\w+) (\S+)$", old.split("## Deprecated")[0])
old_deprecated = re.findall(r"(?m)^### (\w+) (\S+)$", old.split("## Deprecated")[1])

out = ["# Parcel API reference", "", f"Version: {spec['info']['version']}", "", "## Endpoints", ""]
for m, p, op in ops:
    if not op.get("deprecated"):
        out += section(m, p, op)
out += ["## Deprecated", ""]
for m, p, op in ops:
    if op.get("deprecated"):
        out += section(m, p, op)
open("docs/api.md", "w").write("\n".join(out).rstrip("\n") + "\n")

key = lambda mp: (mp[1], ORDER.index(mp[0].lower()))
new_all = {(m, p) for m, p, _ in ops}
old_all = set(old_active) | set(old_deprecated)
added = sorted(new_all - old_all, key=key)
removed = sorted(old_all - new_all, key=key)
deprecated = sorted({(m, p) for m, p, op in ops if op.get("deprecated")} - set(old_deprecated), key=key)
block = ["## [Unreleased]", ""]
for title, items in (("Added", added), ("Deprecated", deprecated), ("Removed", removed)):
    if items:
        block += [f"### {title}"] + [f"- `{m} {p}`" for m, p in items] + [""]
log = open("CHANGELOG.md").read()
log = log.replace("## [Unreleased]\n\n", "\n".join(block) + "\n", 1)
open("CHANGELOG.md", "w").write(log)
PY
