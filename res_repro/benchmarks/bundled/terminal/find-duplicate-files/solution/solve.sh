#!/bin/bash
set -euo pipefail
cd /app/photos
find . -type f ! -empty -print0 |
  LC_ALL=C sort -z |
  xargs -0 sha256sum |
  LC_ALL=C sort -s -k1,1 |
  awk '
    {
      h = substr($0, 1, 64); p = substr($0, 67); sub(/^\.\//, "", p)
      if (h == prev) { line = line "\t" p; n++ }
      else { if (n > 1) print line; line = p; n = 1; prev = h }
    }
    END { if (n > 1) print line }
  ' |
  LC_ALL=C sort > /app/duplicates.txt
