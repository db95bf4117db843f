#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Builds Skele-Code in build-tests/ (development build) and runs every test under Xvfb.
# The last line printed is always "N passed, N failed, N skipped".
# Set CI=true to build with --werror.

set -euo pipefail

cd "$(dirname "$0")/.."
exec < /dev/null

build_dir="build-tests"
testlog="${build_dir}/meson-logs/testlog.json"

summary() {
  echo "$1 passed, $2 failed, $3 skipped"
}

bash build-aux/install-deps.sh \
  || echo "run-tests: installing dependencies failed; trying to build anyway" >&2

setup_args=(-Ddevelopment=true)
case "${CI:-}" in
  "" | false | 0) setup_args+=(-Dwerror=false) ;;
  *) setup_args+=(--werror) ;;
esac
if [[ -f "${build_dir}/meson-private/coredata.dat" ]]; then
  setup_args+=(--reconfigure)
fi

if ! meson setup "${build_dir}" "${setup_args[@]}"; then
  echo "run-tests: meson setup failed" >&2
  summary 0 0 0
  exit 1
fi
if ! meson compile -C "${build_dir}"; then
  echo "run-tests: build failed" >&2
  summary 0 0 0
  exit 1
fi

rm -f "${testlog}"
test_cmd=(meson test -C "${build_dir}" --print-errorlogs --num-processes 2)
test_status=0
if command -v xvfb-run > /dev/null; then
  xvfb-run -a -s '-screen 0 1280x800x24' "${test_cmd[@]}" || test_status=$?
else
  echo "run-tests: xvfb-run not found; running without a virtual display" >&2
  "${test_cmd[@]}" || test_status=$?
fi

exec bash build-aux/report-tests.sh run-tests "${testlog}" "${test_status}"
