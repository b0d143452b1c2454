#!/bin/sh
# Installs the charting libraries that report.html inlines (vega, vega-lite, vega-embed: package.json,
# pinned by package-lock.json) into node_modules/ with npm, which comes from Debian's nodejs and npm
# packages where it is missing. Does nothing when node_modules/ already holds what the lock file pins.
set -eu
cd "$(dirname "$0")/.."
if [ -f node_modules/.dtsim-lock ] && cmp -s package-lock.json node_modules/.dtsim-lock; then
  exit 0
fi
command -v npm >/dev/null 2>&1 || sh cmake/install-deps.sh nodejs npm
echo "dtsim: installing the report's charting libraries (npm ci)"
npm ci --no-audit --no-fund --loglevel=error
cp package-lock.json node_modules/.dtsim-lock
