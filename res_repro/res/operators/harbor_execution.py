"""Execution-dependency operators for Harbor environments: something must be run, in order, first.

Each operator puts a tool (a Python script) into ``/app/bin`` (``/app/.tools`` when the task has its
own ``bin``) and a note at the top of /app that says how to use it; the system folders are read-only
in the sandbox, so nothing is installed elsewhere.
"""

from __future__ import annotations

import random
import re
from typing import Any, ClassVar

from res_repro.env.formats.harbor import HarborDraft
from res_repro.res.graph import GOAL, DependencyGraph, Edge
from res_repro.res.operators.base import Family
from res_repro.res.operators.harbor_common import (
    APP,
    HEX_KEY,
    RELATIVE_PATH,
    TAG,
    TOOL_PATH,
    HarborOperator,
    Pools,
    digest,
    free_name,
    listed,
    missing,
    moved,
    new_tag,
    node,
    notes,
    pick_file,
    put,
    put_text,
    python_prelude,
    random_key,
    restored,
    short_id,
    take,
    task_text,
    tools_folder,
    xor,
)

VAULT_TOOL = '''\
#!/usr/bin/env python3
"""Rebuild /app/{file} from the vault ({blob}, XORed with the key)."""

import hashlib
import os
import sys

VAULT = "{app}/{blob}"
KEY = bytes.fromhex("{key}")
TARGET = {target!r}
SHA = "{sha}"
MODE = 0o{mode:o}
{guard_setup}

def main():
{guard}    data = open(VAULT, "rb").read()
    plain = bytes(b ^ KEY[i % len(KEY)] for i, b in enumerate(data))
    if hashlib.sha256(plain).hexdigest() != SHA:
        sys.exit("{name}: checksum mismatch, nothing written")
    os.makedirs(os.path.dirname(TARGET), exist_ok=True)
    with open(TARGET, "wb") as out:
        out.write(plain)
    os.chmod(TARGET, MODE)
    print("restored", TARGET)


main()
'''

SETUP_GUARD = """\
    if not os.path.isfile(STAMP):
        sys.exit("{name}: the workspace is not set up: run `bash {app}/{setup}` first")
"""

RUN_DOCUMENTED = """\
import shlex
import subprocess

m = meta({note!r})
for key in {keys!r}:
    subprocess.run(shlex.split(m[key]), check=True)
"""


def stash(draft: HarborDraft, params: dict[str, Any]) -> tuple[str, int, str]:
    """Move the target file into this change's vault, XORed with the key: (blob path, mode, sha256)."""
    data, mode = take(draft, params["file"])
    blob = f".vault-{params['tag']}/{short_id(params['tag'], params['file'])}.bin"
    put(draft, blob, xor(data, bytes.fromhex(params["key"])))
    return blob, mode, digest(data)


def vault_tool(params: dict[str, Any], blob: str, mode: int, sha: str, *, setup: str | None = None) -> str:
    """The source of a tool that rebuilds the target file from the vault (gated on a setup stamp)."""
    name = params["tool"].rsplit("/", 1)[-1]
    return VAULT_TOOL.format(
        file=params["file"],
        blob=blob,
        app=APP,
        key=params["key"],
        target=f"{APP}/{params['file']}",
        sha=sha,
        mode=mode,
        name=name,
        guard_setup=f'STAMP = "{APP}/.state-{params["tag"]}/ready"\n' if setup else "",
        guard=SETUP_GUARD.format(name=name, app=APP, setup=setup) if setup else "",
    )


def vault_params(draft: HarborDraft, graph: DependencyGraph, rng: random.Random, verb: str) -> dict[str, Any]:
    """The parameters every vault-based operator shares, or {} when there is no target."""
    target = pick_file(draft, graph, rng)
    if target is None:
        return {}
    tag = new_tag(rng)
    return {"file": target, "tag": tag, "key": random_key(rng), "tool": f"{tools_folder(draft)}/{verb}-{tag}"}


VAULT_PROPERTIES: dict[str, Any] = {"file": RELATIVE_PATH, "tag": TAG, "key": HEX_KEY, "tool": TOOL_PATH}


class SetupGate(HarborOperator):
    """A file is only available through a tool in /app/bin that refuses to run before a setup script."""

    name = "setup_gate"
    family = Family.EXECUTION_DEPENDENCIES
    description = (
        "Moves a workspace file into an encrypted vault; the tool bin/fetch-<tag> restores it but refuses "
        "until `bash setup-<tag>.sh` has been run. NOTES-<tag>.md gives both commands."
    )
    params_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": VAULT_PROPERTIES,
        "required": sorted(VAULT_PROPERTIES),
        "additionalProperties": False,
    }

    def propose(
        self, draft: HarborDraft, graph: DependencyGraph, rng: random.Random
    ) -> dict[str, Any] | None:
        """Pick a file, a key and the tool's name."""
        return vault_params(draft, graph, rng, "fetch") or None

    def apply(self, draft: HarborDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Stash the file, add the setup script, the gated tool and the note; the reference runs both."""
        blob, mode, sha = stash(draft, params)
        setup = self._setup(params)
        script = (
            "#!/bin/bash\n# Prepare the workspace for the vault tools.\nset -euo pipefail\n"
            f'test -f "{APP}/{blob}" || {{ echo "vault missing" >&2; exit 1; }}\n'
            f"mkdir -p {APP}/.state-{params['tag']}\necho ready > {APP}/.state-{params['tag']}/ready\n"
        )
        put_text(draft, setup, script, 0o755)
        put_text(draft, params["tool"], vault_tool(params, blob, mode, sha, setup=setup), 0o755)
        note = self._notes(params)
        meta = {"file": params["file"], "setup": f"bash {setup}", "fetch": f"python3 {params['tool']}"}
        prose = (
            f"/app/{params['file']} is kept in the vault and checked out on demand, from /app: first run "
            "the setup command above once, then the fetch command, which writes the file back in place."
        )
        put_text(draft, note, notes("Checking files out of the vault", meta, prose))
        code = RUN_DOCUMENTED.format(note=note, keys=["setup", "fetch"])
        draft.add_prelude(self.name, python_prelude(code))
        step = f"step:setup-{params['tag']}"
        sources = [
            (step, "the fetch tool refuses until the setup has run"),
            (node(params["tool"]), "the fetch tool writes it back"),
            (node(blob), "the vault holds it encrypted"),
        ]
        return [
            *listed(note, setup, params["tool"], blob),
            Edge(node(note), step, "the note says to run the setup script first"),
            Edge(node(setup), step, "running it"),
            *restored(graph, params["file"], sources, self.name),
        ]

    def applied(self, draft: HarborDraft, params: dict[str, Any]) -> str | None:
        """The note, setup script, tool and vault exist, and the original is gone."""
        return moved(draft, [self._notes(params), self._setup(params), params["tool"]], [params["file"]])

    @staticmethod
    def _setup(params: dict[str, Any]) -> str:
        return f"setup-{params['tag']}.sh"

    @staticmethod
    def _notes(params: dict[str, Any]) -> str:
        return f"NOTES-{params['tag']}.md"


FAULTS = ("key", "path", "syntax")


def fault_patch(params: dict[str, Any]) -> tuple[str, str]:
    """The (broken, repaired) text of the helper for the chosen fault."""
    if params["fault"] == "syntax":
        return "def main()\n", "def main():\n"
    if params["fault"] == "path":
        return f'VAULT = "{APP}/.vualt-{params["tag"]}/', f'VAULT = "{APP}/.vault-{params["tag"]}/'
    key = bytes.fromhex(params["key"])
    wrong = bytes([key[0] ^ 0xFF]) + key[1:]
    return f'KEY = bytes.fromhex("{wrong.hex()}")', f'KEY = bytes.fromhex("{params["key"]}")'


REPAIR = """\
m = meta({note!r})
tool = m["helper"].split()[-1]
source = open(tool, encoding="utf-8").read()
assert source.count({broken!r}) == 1, "the helper is not broken in the known way"
with open(tool, "w", encoding="utf-8") as out:
    out.write(source.replace({broken!r}, {repaired!r}))
"""


class BrokenHelper(HarborOperator):
    """A file is only available through a helper script that is broken and must be repaired first."""

    name = "broken_helper"
    family = Family.EXECUTION_DEPENDENCIES
    description = (
        "Moves a workspace file into an encrypted vault; the helper bin/restore-<tag> that rebuilds it has "
        "a fault (a syntax error, a wrong vault path or a wrong key) to repair first. NOTES-<tag>.md "
        "states what the helper should do and the right key."
    )
    params_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {**VAULT_PROPERTIES, "fault": {"enum": list(FAULTS)}},
        "required": sorted([*VAULT_PROPERTIES, "fault"]),
        "additionalProperties": False,
    }

    def propose(
        self, draft: HarborDraft, graph: DependencyGraph, rng: random.Random
    ) -> dict[str, Any] | None:
        """Pick a file, a key, the helper's name and a fault."""
        params = vault_params(draft, graph, rng, "restore")
        return {**params, "fault": rng.choice(FAULTS)} if params else None

    def apply(self, draft: HarborDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Stash the file and add the faulty helper and the note; the reference repairs it and runs it."""
        blob, mode, sha = stash(draft, params)
        broken, repaired = fault_patch(params)
        source = vault_tool(params, blob, mode, sha)
        assert source.count(repaired) == 1
        put_text(draft, params["tool"], source.replace(repaired, broken), 0o755)
        note = self._notes(params)
        meta = {
            "file": params["file"],
            "helper": f"python3 {params['tool']}",
            "vault": blob,
            "key": params["key"],
        }
        prose = (
            f"The helper above rebuilds /app/{params['file']} from the vault file /app/{blob} (every byte "
            "XORed with the key above, the key repeated) and checks the result's SHA-256. It fails at the "
            "moment: repair the helper, then run it from /app before using the file."
        )
        put_text(draft, note, notes("Restoring from the vault", meta, prose))
        repair = REPAIR.format(note=note, broken=broken, repaired=repaired)
        run = RUN_DOCUMENTED.format(note=note, keys=["helper"])
        draft.add_prelude(self.name, python_prelude(repair, run))
        step = f"step:repair-{params['tag']}"
        sources = [(step, "the repaired helper writes it back"), (node(blob), "the vault holds it")]
        return [
            *listed(note, params["tool"], blob),
            Edge(node(note), step, "the note says what the helper should do"),
            Edge(node(params["tool"]), step, "the faulty helper"),
            *restored(graph, params["file"], sources, self.name),
        ]

    def applied(self, draft: HarborDraft, params: dict[str, Any]) -> str | None:
        """The note and the faulty helper exist, and the original is gone."""
        problem = moved(draft, [self._notes(params), params["tool"]], [params["file"]])
        if problem:
            return problem
        source = (draft.workspace / params["tool"]).read_text(encoding="utf-8")
        return None if fault_patch(params)[0] in source else "the helper is not faulty"

    @staticmethod
    def _notes(params: dict[str, Any]) -> str:
        return f"NOTES-{params['tag']}.md"


UNLOCK_TOOL = '''\
#!/usr/bin/env python3
"""Release the stale reservation of /app/{path}: {name} TOKEN (the token is in its lock file)."""

import os
import re
import sys

HELD = {held!r}
LOCK = {lock!r}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: {name} TOKEN")
    lock = os.path.join(HELD, LOCK)
    text = open(lock, encoding="utf-8").read()
    token = re.search(r"^token: (\\S+)$", text, re.MULTILINE).group(1)
    if sys.argv[1] != token:
        sys.exit("{name}: wrong token for " + HELD)
    if os.listdir(HELD) != [LOCK]:
        sys.exit("{name}: " + HELD + " holds more than its lock file")
    os.remove(lock)
    os.rmdir(HELD)
    print("released", HELD)


main()
'''

RELEASE = """\
import shlex
import subprocess

m = meta({note!r})
token = meta(m["lockfile"])["token"]
subprocess.run([*shlex.split(m["release"]), token], check=True)
"""

APP_PATH = re.compile(r"/app/([A-Za-z0-9_][A-Za-z0-9_.\-/]*[A-Za-z0-9_])")


def output_paths(draft: HarborDraft) -> list[str]:
    """Paths under /app the task names that do not exist yet and could be created (its outputs)."""
    named = {match.group(1) for match in APP_PATH.finditer(task_text(draft))}
    return sorted(rel for rel in named if creatable(draft, rel))


def creatable(draft: HarborDraft, rel: str) -> bool:
    """True when nothing is at ``rel`` and no file stands where one of its folders would go."""
    if not free_name(draft, rel):
        return False
    parts = rel.split("/")
    for depth in range(1, len(parts)):
        above = draft.workspace.joinpath(*parts[:depth])
        if above.is_symlink() or (above.exists() and not above.is_dir()):
            return False
    return True


class OutputLock(HarborOperator):
    """A path the task must write is held by a stale job's placeholder until released by a tool."""

    name = "output_lock"
    family = Family.EXECUTION_DEPENDENCIES
    description = (
        "Reserves a path the task writes (or one an earlier change restores) with a placeholder folder "
        "holding a lock file LOCK-<tag>, so nothing can be written there; `bin/unlock-<tag> TOKEN`, with "
        "the token from the lock file, releases it as LOCKS-<tag>.md documents."
    )
    params_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "path": RELATIVE_PATH,
            "token": {"type": "string", "pattern": r"^[0-9a-f]{8,32}$"},
            "tag": TAG,
            "tool": TOOL_PATH,
        },
        "required": ["path", "tag", "token", "tool"],
        "additionalProperties": False,
    }

    def propose(
        self, draft: HarborDraft, graph: DependencyGraph, rng: random.Random
    ) -> dict[str, Any] | None:
        """Pick an output path, or (composing) a path an earlier change's reference writes back."""
        restores = sorted(
            rel
            for name in graph.nodes
            if name.startswith(f"file:{APP}/") and creatable(draft, rel := name.removeprefix(f"file:{APP}/"))
        )
        pool = Pools(output_paths(draft), [], restores).choose(rng)
        if not pool:
            return None
        tag = new_tag(rng)
        return {
            "path": rng.choice(pool),
            "tag": tag,
            "token": f"{rng.getrandbits(64):016x}",
            "tool": f"{tools_folder(draft)}/unlock-{tag}",
        }

    def apply(self, draft: HarborDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Place the placeholder, the unlock tool and the note; the reference releases the path."""
        lockfile = self._lockfile(params)
        job = int(params["token"][:4], 16)
        owner = f"owner: nightly-export (job {job}, no longer running)\n"
        put_text(draft, lockfile, f"{owner}token: {params['token']}\n")
        name = params["tool"].rsplit("/", 1)[-1]
        held, lock = f"{APP}/{params['path']}", lockfile.rsplit("/", 1)[-1]
        source = UNLOCK_TOOL.format(path=params["path"], name=name, held=held, lock=lock)
        put_text(draft, params["tool"], source, 0o755)
        note = self._notes(params)
        meta = {"path": params["path"], "lockfile": lockfile, "release": f"python3 {params['tool']}"}
        prose = (
            f"A job that never finished left /app/{params['path']} reserved: it is a folder holding a lock "
            "file, so nothing can be written at that path. Release it from /app by running the release "
            "command above with the token from the lock file as its argument; it removes the placeholder."
        )
        put_text(draft, note, notes("Stale reservations", meta, prose))
        draft.add_prelude(self.name, python_prelude(RELEASE.format(note=note)))
        step = f"step:unlock-{params['tag']}"
        target = node(params["path"])
        how = "the path can be written once released"
        if target in graph.nodes:
            composed = f"composed: {self.name} on a path an earlier change restores; {how}"
            release = [Edge(step, target, composed)]
        else:
            release = [Edge(step, target, how), Edge(target, GOAL, "the task writes it")]
        return [
            *listed(note, lockfile, params["tool"]),
            Edge(node(note), step, "the note gives the release command"),
            Edge(node(lockfile), step, "the lock file holds the token"),
            Edge(node(params["tool"]), step, "the unlock tool"),
            *release,
        ]

    def applied(self, draft: HarborDraft, params: dict[str, Any]) -> str | None:
        """The placeholder, its lock file, the tool and the note exist."""
        absent = missing(draft, self._notes(params), params["tool"], self._lockfile(params))
        if absent:
            return absent
        return None if (draft.workspace / params["path"]).is_dir() else "the path is not held"

    @staticmethod
    def _lockfile(params: dict[str, Any]) -> str:
        return f"{params['path']}/LOCK-{params['tag']}"

    @staticmethod
    def _notes(params: dict[str, Any]) -> str:
        return f"LOCKS-{params['tag']}.md"
