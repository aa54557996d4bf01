#!/bin/bash
set -euo pipefail
cd /app/downloads
mkdir -p images documents archives other
for f in *; do
  [ -f "$f" ] || continue
  ext=""
  case "$f" in
    *.*) ext="${f##*.}" ;;
  esac
  ext=$(printf '%s' "$ext" | tr '[:upper:]' '[:lower:]')
  case "$ext" in
    jpg | jpeg | png | gif | webp) dest=images ;;
    pdf | txt | md | docx | odt) dest=documents ;;
    zip | gz | tgz | tar | 7z) dest=archives ;;
    *) dest=other ;;
  esac
  mv -- "$f" "$dest/"
done
