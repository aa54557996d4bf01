#!/bin/bash
set -euo pipefail
cd /app
python3 - <<'PY'
import re
from datetime import datetime, timezone

RID = "r-8c41f2"
rows = []
for name, id_pat, parse in [
    ("gateway.log", r"\breq=(\S+)",
     lambda l: datetime.strptime(l.split()[0], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)),
    ("auth.log", r"\brequest_id=(\S+)",
     lambda l: datetime.strptime(l[1:l.index("]")], "%d/%b/%Y:%H:%M:%S.%f %z")),
    ("orders.log", r"\[(r-[^\]]+)\]",
     lambda l: datetime.strptime(l[:23], "%Y-%m-%d %H:%M:%S,%f").replace(tzinfo=timezone.utc)),
]:
    with open(f"logs/{name}", encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.search(id_pat, line)
            if m and m.group(1) == RID:
                rows.append((parse(line), line))
rows.sort(key=lambda r: r[0])
with open("trace.log", "w", encoding="utf-8") as f:
    f.write("".join(line + "\n" for _, line in rows))
PY
