"""A parser for the block-style YAML subset the workspace files use (stdlib only)."""

import re


def parse_yaml(text):
    """Parse the block-style YAML subset used by the workspace files (maps, lists, scalars, flow lists)."""
    lines = []
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        body = re.sub(r"\s+#.*$", "", raw.rstrip()) if "#" in raw else raw.rstrip()
        lines.append([len(body) - len(body.lstrip()), body.strip()])

    def scalar(v):
        v = v.strip()
        if v.startswith("[") and v.endswith("]"):
            return [scalar(x) for x in v[1:-1].split(",") if x.strip()]
        if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
            return v[1:-1]
        return v

    def block(i, indent):
        if lines[i][1].startswith("-"):
            out = []
            while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("-"):
                item = lines[i][1][1:].strip()
                if re.match(r"^[\w.\-]+:(\s|$)", item):
                    lines[i] = [indent + 2, item]
                    value, i = mapping(i, indent + 2)
                    out.append(value)
                else:
                    out.append(scalar(item))
                    i += 1
            return out, i
        return mapping(i, indent)

    def mapping(i, indent):
        out = {}
        while i < len(lines) and lines[i][0] == indent and not lines[i][1].startswith("-"):
            key, _, rest = lines[i][1].partition(":")
            key, rest = scalar(key), rest.strip()
            i += 1
            if rest:
                out[key] = scalar(rest)
            elif i < len(lines) and (lines[i][0] > indent or (lines[i][0] == indent and lines[i][1].startswith("-"))):
                out[key], i = block(i, lines[i][0])
            else:
                out[key] = None
        return out, i

    return block(0, lines[0][0])[0] if lines else None
