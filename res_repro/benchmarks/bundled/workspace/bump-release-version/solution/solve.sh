#!/bin/bash
set -euo pipefail
cd /app
old=2.3.1
new=2.4.0          # RELEASE_PLAN.md: next release is a minor release after 2.3.1
date=2024-11-18

sed -i "s/^version = \"$old\"$/version = \"$new\"/" pyproject.toml
sed -i "s/^__version__ = \"$old\"$/__version__ = \"$new\"/" src/tidewave/__init__.py
sed -i -e "s/^release = \"$old\"$/release = \"$new\"/" -e 's/^version = "2.3"$/version = "2.4"/' docs/conf.py
sed -i -e "s/^appVersion: \"$old\"$/appVersion: \"$new\"/" -e 's/^version: 0.7.3$/version: 0.8.0/' helm/tidewave/Chart.yaml
sed -i "s/^  tag: \"$old\"$/  tag: \"$new\"/" helm/tidewave/values.yaml
sed -i "s/org.opencontainers.image.version=\"$old\"/org.opencontainers.image.version=\"$new\"/" Dockerfile
sed -i "s/^pip install tidewave==$old$/pip install tidewave==$new/" README.md

python3 - "$old" "$new" "$date" <<'PY'
import sys
old, new, date = sys.argv[1:]
text = open("CHANGELOG.md").read()
text = text.replace("## [Unreleased]\n", f"## [Unreleased]\n\n## [{new}] - {date}\n", 1)
text = text.replace(f"[Unreleased]: https://github.com/example/tidewave/compare/v{old}...HEAD\n",
                    f"[Unreleased]: https://github.com/example/tidewave/compare/v{new}...HEAD\n"
                    f"[{new}]: https://github.com/example/tidewave/compare/v{old}...v{new}\n")
open("CHANGELOG.md", "w").write(text)
PY
