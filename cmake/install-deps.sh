#!/bin/sh
# Installs the Debian packages named on the command line that are not installed yet: as root directly,
# otherwise through sudo. When neither works it prints the exact command to run and fails.
set -u
missing=""
for package in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $package"
  fi
done
[ -z "$missing" ] && exit 0

echo "dtsim: installing Debian packages:$missing"
if [ "$(id -u)" = 0 ]; then
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing && exit 0
elif command -v sudo >/dev/null 2>&1; then
  sudo apt-get update -q && sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing && exit 0
fi
echo "dtsim: could not install the packages dtsim needs. Run this as root, then try again:" >&2
echo "  apt-get install -y$missing" >&2
exit 1
