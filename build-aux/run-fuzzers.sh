#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Builds the libFuzzer targets of tests/fuzz/ with clang, ASan and UBSan in
# build-fuzz/, and runs each for SECONDS (default 60) as a test of meson's
# "fuzz" suite, as many at a time as meson runs tests (MESON_TESTTHREADS,
# by default one per core).
#
#   build-aux/run-fuzzers.sh [SECONDS] [TARGET...]
#
# TARGET is a name such as fuzz-project; without one, every target runs.
# Each target grows a working corpus in build-fuzz/tests/fuzz/corpus/TARGET,
# seeded from tests/fuzz/corpus/ and tests/fuzz/regressions/; a crash, leak
# or sanitizer report fails its test, and the input that caused it is written
# to build-fuzz/tests/fuzz/artifacts/ (the test's output names it).
# Prints the executions of each target; the last line printed is always
# "N passed, N failed, N skipped". A missing clang or fuzzer runtime is a
# failure, not a skip. Set CI=true to build with --werror.

set -euo pipefail

cd "$(dirname "$0")/.."
exec < /dev/null

build_dir="build-fuzz"
out_dir="${build_dir}/tests/fuzz"
testlog="${build_dir}/meson-logs/testlog.json"

# A run that stops before its tests must not leave an older run's results
# to be counted.
rm -f "${testlog}"

fail() {
  echo "run-fuzzers: $*" >&2
  exec bash build-aux/report-tests.sh run-fuzzers "${testlog}" 1
}

seconds="${1:-60}"
shift || true
if ! [[ "${seconds}" =~ ^[1-9][0-9]*$ ]]; then
  fail "SECONDS must be a whole number of seconds, not '${seconds}'"
fi
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  targets=(fuzz-project fuzz-llm-stream fuzz-prompt-template fuzz-text-calls fuzz-mermaid)
fi

# run-tests.sh has already installed what is missing.
if [[ -z "${SKELE_DEPS_CHECKED:-}" ]]; then
  bash build-aux/install-deps.sh \
    || echo "run-fuzzers: installing dependencies failed; trying to build anyway" >&2
fi

if ! command -v clang > /dev/null; then
  fail "clang is not installed, so the fuzz targets cannot be built; install clang and its fuzzer runtime (on Debian: apt-get install clang libclang-rt-dev)"
fi

setup_args=(-Dfuzzing=true "-Db_sanitize=address,undefined" -Db_lundef=false
            -Dc_args=-fsanitize=fuzzer-no-link)
case "${CI:-}" in
  "" | false | 0) setup_args+=(-Dwerror=false) ;;
  *) setup_args+=(--werror) ;;
esac
if [[ -f "${build_dir}/meson-private/coredata.dat" ]]; then
  setup_args+=(--reconfigure)
fi

if ! CC=clang meson setup "${build_dir}" "${setup_args[@]}"; then
  fail "meson setup failed; the fuzz targets need clang and its fuzzer runtime (on Debian: apt-get install clang libclang-rt-dev)"
fi
if ! ninja -C "${build_dir}" "${targets[@]/#/tests/fuzz/}"; then
  fail "building the fuzz targets failed"
fi

test_status=0
SKELE_FUZZ_SECONDS="${seconds}" \
  meson test -C "${build_dir}" --no-rebuild --print-errorlogs --suite fuzz "${targets[@]}" \
  || test_status=$?

for target in "${targets[@]}"; do
  grep -h "^${target}: .* executions" "${out_dir}/${target}.log" 2> /dev/null \
    || echo "${target}: did not run"
done

exec bash build-aux/report-tests.sh run-fuzzers "${testlog}" "${test_status}"
