"""What the notes in a Harbor workspace say, and the repairs that follow from it.

A note states facts as ``key: value`` lines (which file, where it is kept now, how it was encoded, in
what order its parts go, which checksum is current, which command to run) and explains them in prose. A
manifest is a CSV mapping stored objects back to paths. The explorer turns each set of facts into a
:class:`Repair`: one shell command that puts a file back where the task expects it, or runs what the
note says to run. Repairs are ordered so that one whose inputs another repair produces runs after it.
"""

from __future__ import annotations

import csv
import io
import json
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass

FACT = re.compile(r"^([a-z]+): (.+)$", re.MULTILINE)
RUNNERS = frozenset({"bash", "sh", "python3", "python"})
# words that begin a command worth running when a note or an error message says to run it
COMMAND_WORDS = RUNNERS | {
    "tar", "unzip", "gunzip", "gzip", "base64", "openssl", "source", ".", "make", "cp", "mv", "ln", "chmod",
    "mkdir", "export", "git", "patch", "touch", "sed", "iconv", "dos2unix",
}  # fmt: skip
SHELL_STATE_WORDS = frozenset({"export", "source", "."})
PATHISH = re.compile(r"(?<![\w./-])/?[\w.-]+(?:/[\w.-]+)+|(?<![\w./-])[\w-]+\.(?:sh|py)\b")

PUT = """\
import os, sys

def put(rel, data, mode=None):
    folder = os.path.dirname(rel)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(rel, "wb") as out:
        out.write(data)
    if mode:
        os.chmod(rel, int(mode, 8))
"""

SCRIPTS = {
    "decode": """\
import base64, gzip
data = open(F["stored"], "rb").read()
scheme = F.get("scheme", "xor")
if scheme == "base64":
    data = base64.decodebytes(data)
elif scheme == "gzip":
    data = gzip.decompress(data)
elif scheme == "xor":
    key = bytes.fromhex(F["key"])
    data = bytes(b ^ key[i % len(key)] for i, b in enumerate(data))
else:
    sys.exit("unknown scheme " + scheme)
put(F["file"], data, F.get("mode"))
""",
    "join": """\
import hashlib
data = b"".join(open(os.path.join(F["folder"], name), "rb").read() for name in F["order"].split())
if F.get("sha") and hashlib.sha256(data).hexdigest() != F["sha"]:
    sys.exit("the parts do not match the checksum")
put(F["file"], data, F.get("mode"))
""",
    "convert": """\
data = open(F["file"], "rb").read()
form = F["form"].lower()
if form == "crlf":
    data = data.replace(b"\\r\\n", b"\\n")
else:
    data = data.decode(form.removesuffix("-le").removesuffix("-be")).lstrip("\\ufeff").encode("utf-8")
put(F["file"], data)
""",
    "pick": """\
import hashlib
for name in sorted(os.listdir(F["copies"])):
    data = open(os.path.join(F["copies"], name), "rb").read()
    if hashlib.sha256(data).hexdigest() == F["sha"]:
        put(F["file"], data, F.get("mode"))
        break
else:
    sys.exit("no copy matches the checksum")
""",
    "link": """\
put(F["file"], open(os.path.realpath(F["link"]), "rb").read(), F.get("mode"))
""",
    "expand": """\
import re
data = open(F["file"], "rb").read()
expanded = re.sub(rb"<<include ([^>\\n]+)>>\\n", lambda m: open(m.group(1).decode(), "rb").read(), data)
if expanded == data:
    sys.exit("no include line to expand")
put(F["file"], expanded)
""",
    "manifest": """\
import csv
found = {name: os.path.join(root, name) for root, _, names in os.walk(".") for name in names}
for row in csv.DictReader(open(F["manifest"], newline="", encoding="utf-8")):
    put(row["path"], open(found[row["object"]], "rb").read(), row.get("mode"))
""",
}
# the order among repairs that depend on each other both ways: unlock first, make text readable next
PRIORITY = ("release", "convert", "decode", "join", "pick", "link", "manifest", "expand", "extract", "run")


@dataclass(frozen=True)
class Repair:
    """One shell command that restores ``targets`` from ``inputs`` (paths relative to /app)."""

    kind: str
    command: str
    why: str
    inputs: frozenset[str]
    targets: frozenset[str]
    shell_state: bool = False  # it sets variables of the shell itself, so it must not run in a subshell

    @property
    def line(self) -> str:
        """The command as sent: in a subshell, so the plan's working directory stays as it was."""
        return self.command if self.shell_state else f"(\n{self.command}\n)"

    @property
    def priority(self) -> int:
        """Rank among repairs that wait on each other."""
        return PRIORITY.index(self.kind)


def facts_of(text: str) -> dict[str, str]:
    """The ``key: value`` facts a note states, first mention winning."""
    facts: dict[str, str] = {}
    for key, value in FACT.findall(text):
        facts.setdefault(key, value.strip())
    return facts


def _relative(path: str) -> str:
    return posixpath.normpath(path.removeprefix("/app/")).lstrip("/")


def _python(
    kind: str, facts: dict[str, str], why: str, inputs: Iterable[str], targets: Iterable[str]
) -> Repair:
    """A repair running the script for ``kind`` from /app with the facts it needs."""
    script = f"{PUT}F = {json.dumps(facts, sort_keys=True)}\n{SCRIPTS[kind]}"
    command = f"cd /app && python3 - <<'PY'\n{script}PY"
    return Repair(kind, command, why, frozenset(map(_relative, inputs)), frozenset(map(_relative, targets)))


def commands_in(text: str) -> list[str]:
    """Commands that prose tells the reader to run (in backticks, fenced, or after ``$``), in order."""
    lines = [
        line for block in re.findall(r"```[\w-]*\n(.*?)```", text, re.DOTALL) for line in block.splitlines()
    ]
    lines += re.findall(r"^\s*\$\s+(.+)$", text, re.MULTILINE)
    lines += re.findall(r"(?<!`)`([^`\n]+)`(?!`)", text)
    found: list[str] = []
    for line in lines:
        command = line.strip().removeprefix("$ ").strip()
        first = command.split()[0] if command else ""
        if (first in COMMAND_WORDS or first.startswith("./")) and command not in found:
            found.append(command)
    return found


def commands_of(facts: dict[str, str]) -> list[str]:
    """The facts whose values are commands (a runner and its arguments), in the note's order."""
    return [value for value in facts.values() if value.split()[0] in RUNNERS or value.startswith("./")]


def _paths_in(command: str) -> set[str]:
    """Workspace paths a command names (relative to /app); paths elsewhere are left out."""
    found = {match.group(0) for match in PATHISH.finditer(command)}
    return {_relative(p) for p in found if not p.startswith("/") or p.startswith("/app/")}


def _run(facts: dict[str, str], note: str) -> list[Repair]:
    """Run the commands a note gives, in order; a command that releases a hold gets the token it needs."""
    commands = commands_of(facts)
    if not commands:
        return []
    lockfile = next((v for k, v in facts.items() if "lock" in k and not commands_of({k: v})), None)
    target = facts.get("file") or facts.get("path")
    targets = [target] if target else []
    inputs = set().union(*(_paths_in(c) for c in commands))
    if lockfile:
        token = f"\"$(sed -n 's/^token: //p' {lockfile})\""
        line = " && ".join(f"{command} {token}" for command in commands)
        why = f"{note} says to run {commands[0]} with the token from {lockfile}."
        return [
            Repair("release", f"cd /app && {line}", why, frozenset({lockfile, *inputs}), frozenset(targets))
        ]
    why = f"{note} says to run: {'; then '.join(commands)}."
    return [Repair("run", f"cd /app && {' && '.join(commands)}", why, frozenset(inputs), frozenset(targets))]


def _restores(facts: dict[str, str], note: str) -> Repair | None:
    """The repair that puts ``facts['file']`` back, from whichever facts say how."""
    file = facts.get("file")
    if not file:
        return None
    stored = facts.get("stored") or facts.get("vault")
    folder = posixpath.dirname(_relative(note))
    if stored and (facts.get("scheme") or facts.get("key")):
        return _python(
            "decode",
            {**facts, "stored": stored},
            f"{note}: {file} is kept encoded as {stored}; decode it.",
            [stored],
            [file],
        )
    if "order" in facts:
        parts = [posixpath.join(folder, name) for name in facts["order"].split()]
        return _python(
            "join",
            {**facts, "folder": folder or "."},
            f"{note}: rebuild {file} from its parts.",
            parts,
            [file],
        )
    if "form" in facts:
        return _python(
            "convert", facts, f"{note}: {file} was re-encoded; convert it back to UTF-8.", [file], [file]
        )
    if "sha" in facts and "copies" in facts:
        return _python(
            "pick",
            facts,
            f"{note}: put the copy matching the checksum back at {file}.",
            [facts["copies"]],
            [file],
        )
    if "link" in facts:
        return _python(
            "link",
            facts,
            f"{note}: copy the live version behind {facts['link']} to {file}.",
            [facts["link"]],
            [file],
        )
    if "fragment" in facts:
        return _python(
            "expand", facts, f"{note}: expand the include line in {file}.", [file, facts["fragment"]], [file]
        )
    return None


def _manifest(text: str, note: str) -> Repair | None:
    """A CSV mapping stored objects back to paths."""
    rows = [row for row in csv.DictReader(io.StringIO(text)) if row.get("object") and row.get("path")]
    if not rows:
        return None
    why = f"{note} maps stored objects back to their paths; move them back."
    return _python("manifest", {"manifest": _relative(note)}, why, [], [row["path"] for row in rows])


def repairs_of(note: str, text: str, *, restore: bool) -> list[Repair]:
    """The repairs a note calls for: running what it says to run, and restoring files when ``restore``."""
    facts = facts_of(text)
    restoring = (_restores(facts, note) or _manifest(text, note)) if restore else None
    if restoring is not None:
        return [restoring]
    runs = [r for r in _run(facts, note) if restore or r.kind == "run"]
    folder = posixpath.dirname(_relative(note))
    for command in commands_in(text):
        state = command.split()[0] in SHELL_STATE_WORDS
        line = command if state else f"cd /app/{folder} && {command}"
        why = f"{note} says to run {command}."
        runs.append(Repair("run", line, why, frozenset(_paths_in(command)), frozenset(), shell_state=state))
    return runs


def ordered(repairs: Iterable[Repair]) -> list[Repair]:
    """Repairs in an order where each runs after those producing its inputs (priority breaks cycles)."""
    left = sorted(repairs, key=lambda r: r.priority)
    out: list[Repair] = []
    while left:
        ready = [
            r
            for r in left
            if not any(q is not r and q.targets & r.inputs and not r.targets & q.inputs for q in left)
        ]
        out.append((ready or left)[0])
        left.remove(out[-1])
    return out
