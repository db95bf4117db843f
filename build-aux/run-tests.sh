#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Builds Skele-Code in build-tests/ (development build) and runs every test under Xvfb;
# then runs the suite again under AddressSanitizer and UndefinedBehaviorSanitizer
# (build-aux/run-sanitizers.sh, in build-san/) and each libFuzzer target for 60 seconds
# (build-aux/run-fuzzers.sh, in build-fuzz/). The last line printed is always
# "N passed, N failed, N skipped", summed over the three; a part that cannot be
# built, for instance because clang is missing, counts as a failure.
# Set CI=true to build with --werror. Set SKELE_TESTS_QUICK=1 to run only the normal
# suite.

set -euo pipefail

cd "$(dirname "$0")/.."
exec < /dev/null

build_dir="build-tests"
testlog="${build_dir}/meson-logs/testlog.json"
san_testlog="build-san/meson-logs/testlog.json"
san_testlog_wrapped="build-san/meson-logs/testlog-xvfb-run.json"
fuzz_testlog="build-fuzz/meson-logs/testlog.json"
fuzz_seconds=60

is_set() {
  case "${1:-}" in
    "" | false | 0) return 1 ;;
    *) return 0 ;;
  esac
}

elapsed() {
  local seconds=$((SECONDS - $1))
  printf '%dm%02ds' $((seconds / 60)) $((seconds % 60))
}

report_times() {
  local IFS=","
  echo "run-tests: time taken: ${times[*]}" | sed 's/,/, /g' >&2
}

bash build-aux/install-deps.sh \
  || echo "run-tests: installing dependencies failed; trying to build anyway" >&2
export SKELE_DEPS_CHECKED=1

quick=0
is_set "${SKELE_TESTS_QUICK:-}" && quick=1

# A part that stops before its tests must not leave an older run's results
# to be counted.
rm -f "${testlog}"
if [[ ${quick} -eq 0 ]]; then
  rm -f "${san_testlog}" "${san_testlog_wrapped}" "${fuzz_testlog}"
fi

# The normal suite.
start=${SECONDS}
setup_args=(-Ddevelopment=true)
if is_set "${CI:-}"; then
  setup_args+=(--werror)
else
  setup_args+=(-Dwerror=false)
fi
if [[ -f "${build_dir}/meson-private/coredata.dat" ]]; then
  setup_args+=(--reconfigure)
fi

test_status=0
if ! meson setup "${build_dir}" "${setup_args[@]}"; then
  echo "run-tests: meson setup failed" >&2
  test_status=1
elif ! meson compile -C "${build_dir}"; then
  echo "run-tests: build failed" >&2
  test_status=1
else
  test_cmd=(meson test -C "${build_dir}" --print-errorlogs --num-processes 2)
  if command -v xvfb-run > /dev/null; then
    # Without -noreset the server starts afresh each time its last client
    # leaves, and a test that opens a window at that moment cannot connect.
    xvfb-run -a -s '-screen 0 1280x800x24 -noreset' "${test_cmd[@]}" || test_status=$?
  else
    echo "run-tests: xvfb-run not found; running without a virtual display" >&2
    "${test_cmd[@]}" || test_status=$?
  fi
fi
times=("normal suite $(elapsed "${start}")")

if [[ ${quick} -ne 0 ]]; then
  echo "run-tests: SKELE_TESTS_QUICK is set, so the sanitizer and fuzz runs are left out" >&2
  report_times
  exec bash build-aux/report-tests.sh run-tests "${testlog}" "${test_status}"
fi

# The suite under ASan and UBSan; it prints its own count, which the closing
# line below includes.
start=${SECONDS}
san_status=0
bash build-aux/run-sanitizers.sh || san_status=$?
if [[ -f "${san_testlog}" && ! -f "${san_testlog_wrapped}" ]]; then
  san_testlog_wrapped="${san_testlog}"
fi
times+=("sanitizers $(elapsed "${start}")")

# Each fuzz target for a minute.
start=${SECONDS}
fuzz_status=0
bash build-aux/run-fuzzers.sh "${fuzz_seconds}" || fuzz_status=$?
times+=("fuzzers $(elapsed "${start}")")

report_times
exec bash build-aux/report-tests.sh run-tests \
  "${testlog}" "${test_status}" \
  "${san_testlog_wrapped}" "${san_status}" \
  "${fuzz_testlog}" "${fuzz_status}"
