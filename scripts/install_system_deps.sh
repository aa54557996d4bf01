#!/usr/bin/env bash
# Installs the system packages the harness needs: bubblewrap (the local sandbox), slirp4netns (outbound
# network for a local sandbox that may use it, without the host's loopback), libseccomp2 (its seccomp
# filter, compiled through the pyseccomp bindings), busybox-static (the
# minimal image the Docker tests build without a registry), docker-registry (the loopback registry
# the image-pull tests push to), chromium (the browser the viewer's Playwright test drives; Playwright
# downloads no browser of its own) and graphviz (`dot` lays out the lineage graph figures). Uses apt-get
# where it can.
set -euo pipefail

missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v slirp4netns >/dev/null 2>&1 || missing+=(slirp4netns)
ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2' || missing+=(libseccomp2)
[ -x /bin/busybox ] || missing+=(busybox-static)
command -v docker-registry >/dev/null 2>&1 || missing+=(docker-registry)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v dot >/dev/null 2>&1 || missing+=(graphviz)
[ ${#missing[@]} -eq 0 ] && exit 0

if command -v apt-get >/dev/null 2>&1; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "error: please install ${missing[*]} (as root: apt-get install -y ${missing[*]})" >&2; exit 1
    fi
  fi
  echo "system packages: installing ${missing[*]} with apt-get"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "error: please install ${missing[*]} with your system's package manager (bubblewrap provides bwrap)" >&2
  exit 1
fi
