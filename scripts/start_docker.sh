#!/usr/bin/env bash
# Makes sure a Docker engine answers: installs Debian's docker.io if needed and starts dockerd by hand
# (no systemd), with the options that work on small machines without a bridge.
set -euo pipefail

if docker info >/dev/null 2>&1; then exit 0; fi
if ! command -v dockerd >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
fi
nohup dockerd --iptables=false --bridge=none >/tmp/dockerd.log 2>&1 &
for _ in $(seq 60); do
  docker info >/dev/null 2>&1 && exit 0
  sleep 1
done
echo "error: dockerd did not start; see /tmp/dockerd.log" >&2
tail -n 20 /tmp/dockerd.log >&2
exit 1
