#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Builds Skele-Code and runs the bundled example workflow from the command line.
# The example is copied to build/example-workflow first, so the source tree is never
# written to. Exits with the status of `skele run`.

set -euo pipefail

cd "$(dirname "$0")/.."
root="$(pwd)"

build_dir="build"
example_src="data/examples/sales-report"
example_copy="${build_dir}/example-workflow"
skele="${build_dir}/src/cli/skele"

bash build-aux/install-deps.sh \
  || echo "run-example: installing dependencies failed; trying to build anyway" >&2

if [[ ! -f "${build_dir}/meson-private/coredata.dat" ]]; then
  meson setup "${build_dir}"
fi
meson compile -C "${build_dir}"

if [[ ! -f "${example_src}/process.json" ]]; then
  echo "run-example: ${example_src}/process.json not found" >&2
  exit 2
fi

rm -rf "${example_copy}"
mkdir -p "${build_dir}"
cp -R "${example_src}" "${example_copy}"

echo "run-example: running ${example_copy}" >&2
status=0
"${skele}" run "${example_copy}" || status=$?

echo
echo "Workflow folder: ${root}/${example_copy}"
outputs="$(find "${example_copy}" -path '*/.skele' -prune -o -type f \
  \( -name '*.svg' -o -name '*.png' -o -name '*.md' -o -name '*_summary.txt' \) -print | sort)"
if [[ -n "${outputs}" ]]; then
  echo "Outputs:"
  while IFS= read -r file; do
    echo "  ${root}/${file}"
  done <<< "${outputs}"
fi
echo "Logs: ${root}/${example_copy}/<node>/.skele/"

exit "${status}"
