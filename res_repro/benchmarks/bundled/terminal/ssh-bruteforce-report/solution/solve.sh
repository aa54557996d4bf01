#!/bin/bash
set -euo pipefail
cd /app
read -r count ip < <(grep 'Failed password for' auth.log |
  sed -E 's/.* from ([0-9.]+) port .*/\1/' | sort | uniq -c | sort -rn | head -n 1)
user=$(grep -E "Accepted [a-z-]+ for [^ ]+ from ${ip//./\\.} port" auth.log |
  sed -E 's/.*Accepted [a-z-]+ for ([^ ]+) from .*/\1/' | head -n 1 || true)
printf '%s\n%s\n%s\n' "$ip" "$count" "${user:-none}" > answer.txt
