#!/bin/sh
# Refresh the browser libraries claimtrace serves from its binary
# (internal/web/static/vendor) from the npm registry, at the versions
# pinned in web/package.json and web/package-lock.json:
#
#   sh web/vendor.sh
#
# npm ci installs exactly what the lock file names (its integrity hashes
# checked), runs no install script, and the files are copied into the
# embedded static folder with their licence. To move to a new version,
# change the pin in package.json, run `npm install --ignore-scripts` in web/
# to update the lock, then this script, and commit all four files.
set -eu
cd "$(dirname "$0")"
npm ci --ignore-scripts --no-audit --no-fund
out=../internal/web/static/vendor
mkdir -p "$out"
cp node_modules/cytoscape/dist/cytoscape.min.js "$out/cytoscape.min.js"
cp node_modules/cytoscape/LICENSE "$out/cytoscape.LICENSE"
rm -rf node_modules
echo "vendored cytoscape $(node -p "require('./package-lock.json').packages['node_modules/cytoscape'].version") into internal/web/static/vendor"
