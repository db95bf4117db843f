#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Builds Skele-Code and opens the bundled example workflow in the window. The example
# is copied to build/example-workflow first (once, so your edits to it are kept between
# launches), and the source tree is never written to. Without a display it runs the
# example with the `skele` command line instead and exits with its status.
# Set SKELE_EXAMPLE_FRESH=1 to start again from a fresh copy.

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

if [[ -n "${SKELE_EXAMPLE_FRESH:-}" ]]; then
  rm -rf "${example_copy}"
fi
if [[ ! -f "${example_copy}/process.json" ]]; then
  rm -rf "${example_copy}"
  mkdir -p "${build_dir}"
  cp -R "${example_src}" "${example_copy}"
fi

if [[ -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ]]; then
  echo "run-example: opening ${example_copy} in the window" >&2
  # The settings schema is compiled into the build tree; an installed copy is
  # not needed to run from here.
  export GSETTINGS_SCHEMA_DIR="${root}/${build_dir}/data${GSETTINGS_SCHEMA_DIR:+:${GSETTINGS_SCHEMA_DIR}}"
  exec "${build_dir}/src/ui/skele-code" "${example_copy}"
fi

echo "run-example: no display found; running ${example_copy} from the command line" >&2
status=0
# The bundled example is our own code, so it also runs where no sandbox can be
# made (in a container, say), after a warning; the window asks instead.
"${skele}" run --sandbox when-available "${example_copy}" || status=$?

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
