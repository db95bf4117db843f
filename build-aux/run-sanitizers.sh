#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Builds Skele-Code in build-san/ with AddressSanitizer and UndefinedBehaviorSanitizer
# (development, debug build) and runs the test suite under Xvfb with leak checking.
# The last line printed is always "N passed, N failed, N skipped"; a build
# that fails counts as one failure. Set CI=true to build with --werror.
#
# Left out, because nothing of ours runs in them or they cannot run here:
# - the "data" suite: validators of the desktop file, metainfo, schemas, help and
#   translations (desktop-file-validate, appstreamcli, Python scripts); the normal
#   suite runs them.
# - test-window-e2e: it drives the real window with xdotool and needs the whole
#   display to itself; its waits are tuned for an unsanitised window.
#
# Leaks that system libraries keep for themselves are listed, each with its reason,
# in tests/lsan.supp. A leak whose allocation is ours is fixed, never listed there.

set -euo pipefail

cd "$(dirname "$0")/.."
exec < /dev/null

build_dir="build-san"
testlog="${build_dir}/meson-logs/testlog.json"
testlog_wrapped="${build_dir}/meson-logs/testlog-xvfb-run.json"

# A run that stops before its tests must not leave an older run's results
# to be counted. Meson names the log after the wrapper, when there is one.
rm -f "${testlog}" "${testlog_wrapped}"

fail() {
  echo "run-sanitizers: $*" >&2
  exec bash build-aux/report-tests.sh run-sanitizers "${testlog_wrapped}" 1
}

# run-tests.sh has already installed what is missing.
if [[ -z "${SKELE_DEPS_CHECKED:-}" ]]; then
  bash build-aux/install-deps.sh \
    || echo "run-sanitizers: installing dependencies failed; trying to build anyway" >&2
fi

# b_lundef=false: the sanitizers' runtime is linked into programs, not into the
# static libraries, which meson would otherwise refuse to link with --no-undefined.
setup_args=(-Ddevelopment=true -Dbuildtype=debug
            "-Db_sanitize=address,undefined" -Db_lundef=false)
case "${CI:-}" in
  "" | false | 0) setup_args+=(-Dwerror=false) ;;
  *) setup_args+=(--werror) ;;
esac
if [[ -f "${build_dir}/meson-private/coredata.dat" ]]; then
  setup_args+=(--reconfigure)
fi

if ! meson setup "${build_dir}" "${setup_args[@]}"; then
  fail "meson setup failed"
fi
if ! meson compile -C "${build_dir}"; then
  fail "build failed"
fi

# Any report fails the test that made it. fast_unwind_on_malloc=0 follows
# allocation stacks through the system libraries, which are built without frame
# pointers, so that the suppressions can match their frames; 16 frames reach the
# deepest of them and cost much less time than the default 30.
# G_SLICE=always-malloc lets the sanitizers see GLib's slice allocations.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:halt_on_error=1:fast_unwind_on_malloc=0:malloc_context_size=16"
export LSAN_OPTIONS="suppressions=${PWD}/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export G_SLICE="always-malloc"
# test-faults kills skele at random moments; a few rounds are enough to run its
# code paths under the sanitizers, and each sanitised round takes seconds.
export SKELE_FAULT_ROUNDS="${SKELE_FAULT_ROUNDS:-5}"

tests=()
while read -r line; do
  case "${line}" in
    *" / "*) ;;
    *) continue ;;
  esac
  case "${line}" in
    *":data / "* | *" / test-window-e2e") continue ;;
  esac
  tests+=("${line##* / }")
done < <(meson test -C "${build_dir}" --no-rebuild --list 2> /dev/null)

if [[ ${#tests[@]} -eq 0 ]]; then
  fail "no test to run"
fi

# The sanitised programs run several times slower than the normal build.
test_cmd=(meson test -C "${build_dir}" --no-rebuild --print-errorlogs --num-processes 2
          --timeout-multiplier 3 "${tests[@]}")
# Each test gets an X server of its own: on a shared one, a window test may
# still be fetching another test's text selection from it when it exits, and
# GDK's X11 transfer in flight is then reported as a leak.
test_status=0
if command -v xvfb-run > /dev/null; then
  "${test_cmd[@]}" --wrapper "xvfb-run -a -s '-screen 0 1280x800x24'" || test_status=$?
  testlog="${testlog_wrapped}"
else
  echo "run-sanitizers: xvfb-run not found; running without a virtual display" >&2
  "${test_cmd[@]}" || test_status=$?
fi

exec bash build-aux/report-tests.sh run-sanitizers "${testlog}" "${test_status}"
