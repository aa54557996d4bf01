#!/bin/bash
set -euo pipefail
cd /app/logs
{ zcat healthcheck.log.2.gz; cat healthcheck.log.1 healthcheck.log; } |
  grep ' check=api ' | sort -s -k1,1 |
  awk '
    { down = ($3 == "status=DOWN") }
    down && !run { run = 1; n = 0; s = $1 }
    down { n++ }
    !down && run { run = 0; if (n > best) { best = n; bs = s; be = $1 } }
    END { printf "start=%s\nend=%s\nchecks=%d\n", bs, be, best }
  ' > /app/outage.txt
cat /app/outage.txt
