#!/usr/bin/env bash
# The system prerequisites of Parallax's tests and agent studies, beside Node and npm:
#   PostgreSQL  the scale-out store's tests (npm test starts a throwaway cluster)
#   bubblewrap  the agent tools' sandbox (agent studies refuse to run without it)
#   Chromium    the browser checks of the report and the viewer
# On Debian or Ubuntu, as root or with sudo, it installs the missing ones with apt-get;
# otherwise it prints what to install and exits 0: the tests that need a missing one skip and
# say why. `.ci/run` runs this same script.
set -euo pipefail

missing=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || missing+=(postgresql)
{ [ -x /usr/bin/bwrap ] && /usr/bin/bwrap --ro-bind / / --unshare-all true 2>/dev/null; } || missing+=(bubblewrap)
[ -x /usr/bin/chromium ] || missing+=(chromium)

if [ "${#missing[@]}" -eq 0 ]; then
  echo "setup: PostgreSQL, bubblewrap and Chromium are installed"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo)
else
  as_root=none
fi

if ! command -v apt-get >/dev/null 2>&1 || [ "${as_root[*]}" = none ]; then
  echo "setup: missing ${missing[*]}; install with:"
  echo "  sudo apt-get install -y --no-install-recommends ${missing[*]}   (Debian/Ubuntu; other systems: their packages)"
  echo "setup: until then, the tests that need them skip and say so"
  exit 0
fi

echo "setup: installing ${missing[*]} with apt-get"
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"

if [[ " ${missing[*]} " == *" bubblewrap "* ]] && ! /usr/bin/bwrap --ro-bind / / --unshare-all true; then
  echo "setup: bubblewrap is installed but cannot create its namespaces here (a container without" >&2
  echo "  user namespaces?): the sandboxed tests will skip, and agent studies will not run" >&2
fi
