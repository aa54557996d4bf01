#!/bin/bash
set -euo pipefail
git clone -q /app/repo.bundle /app/repo
cd /app/repo
git checkout -q main
# the most recent commit that touched the file is the one that deleted it
deleted_in=$(git rev-list -n 1 HEAD -- config/settings.ini)
git checkout "${deleted_in}^" -- config/settings.ini
git -c user.name="Ops Team" -c user.email="ops@example.com" commit -q -m "Restore config/settings.ini"
