"""Information-access operators for Harbor environments: the content is there, but not readable as is."""

from __future__ import annotations

import base64
import gzip
import random
from pathlib import PurePosixPath
from typing import Any, ClassVar

from res_repro.env.formats.harbor import HarborDraft
from res_repro.res.graph import DependencyGraph, Edge
from res_repro.res.operators.base import Family
from res_repro.res.operators.harbor_common import (
    HEX_KEY,
    RELATIVE_PATH,
    TAG,
    HarborOperator,
    digest,
    is_text,
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
    xor,
)

SCHEME_SUFFIX = {"base64": "b64", "gzip": "gz", "xor": "xor"}
SCHEME_PROSE = {
    "base64": "standard base64 text (RFC 4648)",
    "gzip": "gzip-compressed",
    "xor": "every byte XORed with the key bytes (hex), the key repeated from the first byte",
}


def _encode(data: bytes, scheme: str, key: str | None) -> bytes:
    if scheme == "base64":
        return base64.encodebytes(data)
    if scheme == "gzip":
        return gzip.compress(data, mtime=0)
    assert key is not None
    return xor(data, bytes.fromhex(key))


DECODE = """\
import base64
import gzip

m = meta({notes!r})
data = open(m["stored"], "rb").read()
if m["scheme"] == "base64":
    data = base64.decodebytes(data)
elif m["scheme"] == "gzip":
    data = gzip.decompress(data)
else:
    key = bytes.fromhex(m["key"])
    data = bytes(b ^ key[i % len(key)] for i, b in enumerate(data))
restore(m["file"], data, int(m["mode"], 8))
"""


class EncodeFile(HarborOperator):
    """A file is replaced by an encoded copy; a note elsewhere states the scheme and key."""

    name = "encode_file"
    family = Family.INFORMATION_ACCESS
    description = (
        "Replaces a workspace file by a base64, gzip or XOR-encoded copy at the top of /app; a note "
        "NOTES-<tag>.md states the scheme (and key) and where the decoded bytes belong."
    )
    params_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "file": RELATIVE_PATH,
            "scheme": {"enum": sorted(SCHEME_SUFFIX)},
            "key": HEX_KEY,
            "tag": TAG,
        },
        "required": ["file", "scheme", "tag"],
        "if": {"properties": {"scheme": {"const": "xor"}}},
        "then": {"required": ["key"]},
        "else": {"not": {"required": ["key"]}},
        "additionalProperties": False,
    }

    def propose(
        self, draft: HarborDraft, graph: DependencyGraph, rng: random.Random
    ) -> dict[str, Any] | None:
        """Pick a file and a scheme (a random key for XOR)."""
        target = pick_file(draft, graph, rng)
        if target is None:
            return None
        params: dict[str, Any] = {"file": target, "scheme": rng.choice(sorted(SCHEME_SUFFIX))}
        if params["scheme"] == "xor":
            params["key"] = random_key(rng)
        params["tag"] = new_tag(rng)
        return params

    def apply(self, draft: HarborDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Write the encoded copy and the note, delete the original, and decode it in the reference."""
        data, mode = take(draft, params["file"])
        stored = self._stored(params)
        put(draft, stored, _encode(data, params["scheme"], params.get("key")))
        key = {"key": params["key"]} if "key" in params else {}
        meta = {"file": params["file"], "stored": stored, "scheme": params["scheme"], **key}
        meta["mode"] = f"{mode:04o}"
        prose = (
            f"The file /app/{params['file']} is kept encoded as /app/{stored}: "
            f"{SCHEME_PROSE[params['scheme']]}. Decode it back to /app/{params['file']} (with the mode "
            "above) before using it: whatever reads that path expects the decoded bytes."
        )
        put_text(draft, self._notes(params), notes("Encoded file", meta, prose))
        draft.add_prelude(self.name, python_prelude(DECODE.format(notes=self._notes(params))))
        return listed(self._notes(params), stored) + restored(
            graph,
            params["file"],
            [(node(stored), "decoded"), (node(self._notes(params)), "the note gives the scheme and key")],
            self.name,
        )

    def applied(self, draft: HarborDraft, params: dict[str, Any]) -> str | None:
        """The encoded copy and the note exist, and the original is gone."""
        return moved(draft, [self._stored(params), self._notes(params)], [params["file"]])

    @staticmethod
    def _stored(params: dict[str, Any]) -> str:
        base = PurePosixPath(params["file"]).name
        return f"{base}.{params['tag']}.{SCHEME_SUFFIX[params['scheme']]}"

    @staticmethod
    def _notes(params: dict[str, Any]) -> str:
        return f"NOTES-{params['tag']}.md"


JOIN = """\
import hashlib

m = meta({order!r})
folder = os.path.dirname({order!r})
data = b"".join(open(os.path.join(folder, part), "rb").read() for part in m["order"].split())
assert hashlib.sha256(data).hexdigest() == m["sha"], "the parts do not rebuild the file"
restore(m["file"], data, int(m["mode"], 8))
"""


class SplitParts(HarborOperator):
    """A file is cut into parts with opaque names; a list in their folder gives their order."""

    name = "split_parts"
    family = Family.INFORMATION_ACCESS
    description = (
        "Cuts a workspace file into 2-6 parts with opaque names in parts-<tag>/; parts-<tag>/ORDER "
        "lists the order in which they rebuild the file and where it belongs."
    )
    params_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "file": RELATIVE_PATH,
            "parts": {"type": "integer", "minimum": 2, "maximum": 6},
            "tag": TAG,
        },
        "required": ["file", "parts", "tag"],
        "additionalProperties": False,
    }

    def propose(
        self, draft: HarborDraft, graph: DependencyGraph, rng: random.Random
    ) -> dict[str, Any] | None:
        """Pick a file of at least two bytes and a number of parts it can be cut into."""
        target = pick_file(draft, graph, rng, accept=lambda path: path.stat().st_size >= 2)
        if target is None:
            return None
        size = (draft.workspace / target).stat().st_size
        return {"file": target, "parts": rng.randint(2, min(6, size)), "tag": new_tag(rng)}

    def apply(self, draft: HarborDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Write the parts and the order list, delete the original, and join them in the reference."""
        data, mode = take(draft, params["file"])
        parts = self._parts(params)
        step = -(-len(data) // len(parts))
        for index, part in enumerate(parts):
            put(draft, part, data[index * step : (index + 1) * step])
        order = self._order(params)
        meta = {
            "file": params["file"],
            "mode": f"{mode:04o}",
            "sha": digest(data),
            "order": " ".join(PurePosixPath(p).name for p in parts),
        }
        prose = (
            f"/app/{params['file']} was cut into the parts listed above, in this folder. Concatenate them "
            f"byte for byte in the listed order to rebuild /app/{params['file']} (its SHA-256 is `sha`) "
            "before using it."
        )
        put_text(draft, order, notes("Parts of a file", meta, prose))
        draft.add_prelude(self.name, python_prelude(JOIN.format(order=order)))
        sources = [(node(part), "one of its parts") for part in parts]
        sources.append((node(order), "the list gives the order of the parts"))
        return listed(order, *parts) + restored(graph, params["file"], sources, self.name)

    def applied(self, draft: HarborDraft, params: dict[str, Any]) -> str | None:
        """Every part and the order list exist, and the original is gone."""
        return moved(draft, [self._order(params), *self._parts(params)], [params["file"]])

    @staticmethod
    def _parts(params: dict[str, Any]) -> list[str]:
        """The parts' paths, in the order that rebuilds the file."""
        return [
            f"parts-{params['tag']}/seg-{short_id(params['tag'], str(i))[:8]}" for i in range(params["parts"])
        ]

    @staticmethod
    def _order(params: dict[str, Any]) -> str:
        return f"parts-{params['tag']}/ORDER"


FORMS = {
    "utf-16": "UTF-16 (little-endian, with a byte-order mark)",
    "utf-32": "UTF-32 (little-endian, with a byte-order mark)",
    "crlf": "UTF-8 with CRLF (Windows) line endings",
}
BOMS = {"utf-16": b"\xff\xfe", "utf-32": b"\xff\xfe\x00\x00"}


def _transcode(data: bytes, form: str) -> bytes:
    if form == "crlf":
        return data.replace(b"\n", b"\r\n")
    return BOMS[form] + data.decode("utf-8").encode(f"{form}-le")


CONVERT_BACK = """\
m = meta({notes!r})
data = open(m["file"], "rb").read()
boms = {{"utf-16": b"\\xff\\xfe", "utf-32": b"\\xff\\xfe\\x00\\x00"}}
if m["form"] == "crlf":
    data = data.replace(b"\\r\\n", b"\\n")
else:
    assert data.startswith(boms[m["form"]]), "no byte-order mark"
    data = data[len(boms[m["form"]]) :].decode(m["form"] + "-le").encode("utf-8")
with open(m["file"], "wb") as out:
    out.write(data)
"""


class TranscodeText(HarborOperator):
    """A text file is re-encoded in place (UTF-16, UTF-32 or CRLF endings), so naive tools misread it."""

    name = "transcode_text"
    family = Family.INFORMATION_ACCESS
    description = (
        "Re-encodes a UTF-8 text file in place as UTF-16, UTF-32 or with CRLF line endings; a note "
        "NOTES-<tag>.md says so and that the task expects UTF-8 with LF endings."
    )
    params_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"file": RELATIVE_PATH, "form": {"enum": sorted(FORMS)}, "tag": TAG},
        "required": ["file", "form", "tag"],
        "additionalProperties": False,
    }

    def propose(
        self, draft: HarborDraft, graph: DependencyGraph, rng: random.Random
    ) -> dict[str, Any] | None:
        """Pick a UTF-8 text file with LF line endings and a form (not CRLF for an earlier artifact:
        the references that read those accept either line ending)."""
        target = pick_file(draft, graph, rng, accept=is_text)
        if target is None:
            return None
        forms = [form for form in sorted(FORMS) if form != "crlf" or node(target) not in graph.nodes]
        return {"file": target, "form": rng.choice(forms), "tag": new_tag(rng)}

    def apply(self, draft: HarborDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Rewrite the file in place, write the note, and convert it back in the reference."""
        path = draft.workspace / params["file"]
        path.write_bytes(_transcode(path.read_bytes(), params["form"]))
        note = self._notes(params)
        prose = (
            f"/app/{params['file']} was saved as {FORMS[params['form']]}. Whatever reads it expects "
            "UTF-8 with LF line endings and no byte-order mark: convert it back in place before using it."
        )
        meta = {"file": params["file"], "form": params["form"]}
        put_text(draft, note, notes("Text encoding", meta, prose))
        draft.add_prelude(self.name, python_prelude(CONVERT_BACK.format(notes=note)))
        return listed(note) + restored(
            graph, params["file"], [(node(note), "the note says how to convert it back")], self.name
        )

    def applied(self, draft: HarborDraft, params: dict[str, Any]) -> str | None:
        """The note exists and the file is no longer plain UTF-8 with LF endings."""
        absent = missing(draft, self._notes(params), params["file"])
        if absent:
            return absent
        return "the file is still plain UTF-8" if is_text(draft.workspace / params["file"]) else None

    @staticmethod
    def _notes(params: dict[str, Any]) -> str:
        return f"NOTES-{params['tag']}.md"
