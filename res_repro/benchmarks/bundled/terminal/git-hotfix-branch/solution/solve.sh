#!/bin/bash
set -euo pipefail
git clone -q /app/repo.bundle /app/repo
cd /app/repo
git checkout -q -b hotfix/1.2.1 v1.2.0
sed -i 's/^DEFAULT_TIMEOUT = 30\b/DEFAULT_TIMEOUT = 60/' httpclient/config.py
sed -i 's/^VERSION = "1.2.0"$/VERSION = "1.2.1"/' httpclient/__init__.py
git add httpclient/config.py httpclient/__init__.py
git -c user.name="Release Bot" -c user.email="release-bot@example.com" \
  commit -q -m "Raise default timeout to 60s"
git tag v1.2.1
