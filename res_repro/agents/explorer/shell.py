"""The explorer on Harbor tasks: run a shell plan step by step through ``run_command``, and repair.

The plan is the seed task's reference script. It is cut into top-level commands (a heredoc, a loop or
an ``if`` block stays whole), each run as one turn in the environment's persistent shell, so the
working directory and variables carry over as they would in one script. ``set -e`` is left out: the
explorer checks each step's exit code itself. A tier with the skills tidies the workspace before the
plan (looks at /app, reads its notes, does what they say) and, when a step fails, finds out why from
the error and the workspace, repairs what it can, and runs the step again.
"""

from __future__ import annotations

import dataclasses
import functools
import posixpath
import re
import shlex
import subprocess
from dataclasses import dataclass, field

from res_repro.agents.explorer.choices import Choices
from res_repro.agents.explorer.notes import Repair, commands_in, facts_of, ordered, repairs_of
from res_repro.agents.explorer.tiers import Skill, Tier
from res_repro.agents.explorer.trace import Trace

APP = "/app"
STEP_TIMEOUT_S = 600.0
# every file under /app, and every link with the path it finally leads to
SURVEY = (
    f"find {APP} -maxdepth 6 -name .git -prune -o -type f -print -o -type l -printf '%p -> ' "
    "-exec readlink -f {} \\; 2>/dev/null | sort | head -n 3000"
)
NOTE = re.compile(r"^[A-Z][A-Z_]{2,}(-[0-9A-Za-z]+)?(\.(md|txt|csv|rst))?$")  # NOTES-1a2b3c.md, ORDER
ARCHIVE = re.compile(r"\.(tar\.gz|tgz|tar\.bz2|tbz2?|tar\.xz|txz|tar|zip)$")
MISSING = (
    re.compile(r"No such file or directory: '([^']+)'"),
    re.compile(r"([^\s:'\"`]+): No such file or directory"),
    re.compile(r"cannot (?:access|open|stat) '([^']+)'"),
    re.compile(r"can't (?:open|read) (?:file )?'?([^\s:']+)'?"),
)
WORD = re.compile(r"[\w.-]+")
MAX_ROUNDS = 8  # survey-and-repair rounds in one tidy-up
INCOMPLETE = ("here-document", "unexpected end of file", "unexpected EOF")


def _complete(text: str) -> bool:
    """True when ``text`` is whole shell input: no open quote, block, heredoc or line continuation."""
    if text.rstrip("\n").endswith("\\"):
        return False
    check = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True, check=False)
    return not any(marker in check.stderr for marker in INCOMPLETE)


def _without_errexit(step: str) -> str:
    """A ``set`` line without ``-e`` (the explorer stops on a failed step itself); other steps as they are."""
    match = re.fullmatch(r"set\s+-([a-zA-Z]+)(.*)", step.strip())
    if not match or "e" not in match.group(1):
        return step
    flags = match.group(1).replace("e", "")
    return f"set -{flags}{match.group(2)}" if flags else f"set +e{match.group(2)}"


@functools.lru_cache(maxsize=256)
def split_steps(script: str) -> tuple[str, ...]:
    """The script's top-level commands in order, comments and blank lines between them dropped."""
    steps: list[str] = []
    chunk: list[str] = []
    for line in script.splitlines():
        if not chunk and (not line.strip() or line.lstrip().startswith("#")):
            continue
        chunk.append(line)
        if _complete("\n".join(chunk) + "\n"):
            steps.append(_without_errexit("\n".join(chunk)))
            chunk = []
    if chunk:
        steps.append("\n".join(chunk))
    return tuple(steps)


def missing_names(output: str) -> set[str]:
    """The base names of the paths an error output says do not exist."""
    return {
        posixpath.basename(name.strip().rstrip(".,;/"))
        for pattern in MISSING
        for name in pattern.findall(output)
        if name.strip()
    }


def is_note(path: str) -> bool:
    """A note the explorer reads: capitalised names at the top of /app, or extensionless ones one below."""
    relative = path.removeprefix(APP + "/")
    depth = relative.count("/")
    name = posixpath.basename(relative)
    return bool(NOTE.match(name)) and (depth == 0 or (depth == 1 and "." not in name))


@dataclass
class StepResult:
    """What one command did."""

    exit_code: int
    output: str

    @property
    def ok(self) -> bool:
        """True for exit code 0."""
        return self.exit_code == 0


@dataclass
class ShellExplorer:
    """Runs a shell plan within a tier's budget and skills, repairing the workspace where it can.

    ``context`` is the plan and the instruction: the names in it (and in the notes) are the inputs
    worth restoring from an archive. ``choices`` orders the notes it reads (and so the repairs of equal
    rank it tries first).
    """

    trace: Trace
    tier: Tier
    context: str
    choices: Choices
    words: set[str] = field(init=False)
    notes: dict[str, list[Repair]] = field(default_factory=dict)  # repairs each note read calls for
    done: dict[str, frozenset[str]] = field(default_factory=dict)  # repairs that succeeded: what they read
    successes: int = 0  # repairs that have succeeded so far
    failed: dict[str, int] = field(default_factory=dict)  # repairs that failed: successes at the time
    listed: set[str] = field(default_factory=set)  # archives whose members have been listed

    def __post_init__(self) -> None:
        self.words = set(WORD.findall(self.context))

    def command(self, command: str, why: str) -> StepResult:
        """Run one command in the persistent shell (one turn)."""
        response = self.trace.call("run_command", {"command": command, "timeout_sec": STEP_TIMEOUT_S}, why)
        if response.is_error or not isinstance(response.body, dict):
            return StepResult(-1, response.text())
        body = response.body
        code = -1 if body.get("timed_out") else int(body.get("exit_code", -1))
        return StepResult(code, str(body.get("output", "")))

    def run(self, script: str) -> tuple[bool, str]:
        """Run every step; (True, summary) when each ended with exit code 0, else (False, why)."""
        steps = split_steps(script)
        self.trace.note(f"The plan has {len(steps)} steps; I will run them one at a time.")
        if self.tier.has(Skill.ORIENT):
            self.tidy("Before running the plan, look at what is in /app.", set())
        for index, step in enumerate(steps, start=1):
            result = self.run_step(step, f"Plan step {index} of {len(steps)}.")
            if not result.ok:
                return False, f"step {index} of {len(steps)} failed with exit code {result.exit_code}"
        return True, f"ran all {len(steps)} steps of the plan successfully"

    def run_step(self, step: str, why: str) -> StepResult:
        """Run a step; while it fails and the tier can, investigate, repair and run it again."""
        result = self.command(step, why)
        repairs = 0
        while not result.ok and repairs < self.tier.recoveries_per_call and self.tier.has(Skill.INVESTIGATE):
            if not self.investigate(result.output):
                break
            repairs += 1
            self.trace.recoveries += 1
            result = self.command(step, "Retry the step after the repair.")
        return result

    def investigate(self, output: str) -> bool:
        """Do what the error says to do, then tidy the workspace; True when something was changed."""
        said = [
            Repair("run", c, "The error says to run this.", frozenset(), frozenset())
            for c in commands_in(output)
        ]
        changed = self.attempt(said)
        return self.tidy("The step failed; look at what is in /app.", missing_names(output)) or changed

    def tidy(self, why: str, missing: set[str]) -> bool:
        """Survey /app, read new notes, and run the repairs they call for until none is left to run."""
        changed = False
        for _ in range(MAX_ROUNDS):
            listing, links = self.survey(why)
            why = "Look at /app again after the repairs."
            for note in self.choices.order(sorted(p for p in listing if is_note(p) and p not in self.notes)):
                self.read_note(note)
            pending = [r for repairs in self.notes.values() for r in repairs]
            if self.tier.has(Skill.RESTORE):
                pending += self.extractions(listing, missing)
            present = present_paths(listing)
            runnable = [r for r in ordered(through_links(r, links) for r in pending) if r.inputs <= present]
            if not self.attempt(runnable):
                break
            changed = True
        return changed

    def attempt(self, repairs: list[Repair]) -> bool:
        """Run each repair not done (or since made stale) and not failed since the last change.

        A repair that copies files is stale once a later repair rewrites one of its inputs; a repair
        that rewrites a file in place runs once. True when one succeeded.
        """
        progress = False
        for repair in repairs:
            if repair.command in self.done or self.failed.get(repair.command) == self.successes:
                continue
            if not self.command(repair.line, repair.why).ok:
                self.failed[repair.command] = self.successes
                continue
            self.successes += 1
            progress = True
            for command, read in list(self.done.items()):
                if read & repair.targets:
                    del self.done[command]
            in_place = bool(repair.inputs & repair.targets)
            self.done[repair.command] = frozenset() if in_place else repair.inputs
            for target in repair.targets:  # a restored note may say something new
                self.notes.pop(f"{APP}/{target}", None)
        return progress

    def survey(self, why: str) -> tuple[list[str], dict[str, str]]:
        """Every file and link under /app, and where each link leads (relative to /app; one turn)."""
        listing, links = [], {}
        for line in self.command(SURVEY, why).output.splitlines():
            path, _, target = line.partition(" -> ")
            if path.startswith(APP):
                listing.append(path)
            if target.startswith(APP + "/"):
                links[posixpath.relpath(path, APP)] = posixpath.relpath(target, APP)
        return listing, links

    def read_note(self, path: str) -> None:
        """Read a note through ``read_file`` (one turn) and keep the repairs it calls for."""
        response = self.trace.call("read_file", {"path": path}, f"Read {path}.")
        body = response.body
        text = str(body.get("content", "")) if isinstance(body, dict) and not response.is_error else ""
        self.words |= set(WORD.findall(" ".join(facts_of(text).values())))
        self.notes[path] = repairs_of(path, text, restore=self.tier.has(Skill.RESTORE))

    def wanted(self, member: str, missing: set[str]) -> bool:
        """True for a note, or a path whose parts the plan, the instruction, a note or an error names."""
        parts = [part for part in member.split("/") if part]
        return is_note(member) or any(part in self.words or part in missing for part in parts)

    def extractions(self, listing: list[str], missing: set[str]) -> list[Repair]:
        """Extract each archive holding absent files that are wanted (its members listed once, one turn)."""
        archives = [p for p in listing if ARCHIVE.search(p) and p not in self.listed]
        if not archives:
            return []
        self.listed.update(archives)
        present = set(listing)
        repairs = []
        for archive, members in self.members(archives).items():
            folder = posixpath.dirname(archive)
            absent = [m for m in members if posixpath.join(folder, m) not in present]
            if any(self.wanted(m, missing) for m in absent):
                repairs.append(extraction(archive, absent))
        return repairs

    def members(self, archives: list[str]) -> dict[str, list[str]]:
        """The files each archive holds, from one listing command (unreadable archives hold none)."""
        script = "; ".join(
            f"echo {shlex.quote('== ' + a)}; "
            + (f"unzip -Z1 {shlex.quote(a)}" if a.endswith(".zip") else f"tar -tf {shlex.quote(a)}")
            + " 2>/dev/null"
            for a in archives
        )
        output = self.command(script, "There are archives in /app; list what they hold.").output
        members: dict[str, list[str]] = {}
        current = ""
        for line in output.splitlines():
            if line.startswith("== "):
                current = line[3:]
                members[current] = []
            elif current and line.strip() and not line.endswith("/"):
                members[current].append(line.strip())
        return members


def through_links(repair: Repair, links: dict[str, str]) -> Repair:
    """The repair with the files its linked inputs lead to counted among its inputs."""
    behind = {links[path] for path in repair.inputs if path in links}
    return dataclasses.replace(repair, inputs=repair.inputs | behind) if behind else repair


def present_paths(listing: list[str]) -> set[str]:
    """Every listed path relative to /app, with the folders above each."""
    present: set[str] = set()
    for path in listing:
        relative = posixpath.relpath(path, APP)
        while relative not in ("", ".") and relative not in present:
            present.add(relative)
            relative = posixpath.dirname(relative)
    return present


def extraction(archive: str, members: list[str]) -> Repair:
    """Extract an archive beside itself, keeping the files already there."""
    folder = posixpath.dirname(archive)
    if archive.endswith(".zip"):
        command = f"unzip -n -q {shlex.quote(archive)} -d {shlex.quote(folder)}"
    else:
        command = f"tar -xf {shlex.quote(archive)} -C {shlex.quote(folder)} --skip-old-files"
    relative = [posixpath.relpath(posixpath.join(folder, m), APP) for m in members]
    why = f"{archive} holds files that are missing from the workspace; extract it."
    inputs = frozenset({posixpath.relpath(archive, APP)})
    return Repair("extract", command, why, inputs, frozenset(relative))
