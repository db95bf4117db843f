#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Builds the libFuzzer targets of tests/fuzz/ with clang, ASan and UBSan in
# build-fuzz/, and runs each for SECONDS (default 60), one after another.
#
#   build-aux/run-fuzzers.sh [SECONDS] [TARGET...]
#
# TARGET is a name such as fuzz-project; without one, every target runs.
# Each target grows a working corpus in build-fuzz/tests/fuzz/corpus/TARGET,
# seeded from tests/fuzz/corpus/ and tests/fuzz/regressions/; a crash, leak
# or sanitizer report is written to build-fuzz/tests/fuzz/artifacts/.
# Prints the executions of each target; exits 1 if any target found a fault.

set -euo pipefail

cd "$(dirname "$0")/.."
exec < /dev/null

seconds="${1:-60}"
shift || true
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  targets=(fuzz-project fuzz-llm-stream fuzz-prompt-template fuzz-text-calls)
fi

build_dir="build-fuzz"
out_dir="${build_dir}/tests/fuzz"

if [[ ! -f "${build_dir}/meson-private/coredata.dat" ]]; then
  CC=clang meson setup "${build_dir}" \
    -Dfuzzing=true \
    -Db_sanitize=address,undefined \
    -Db_lundef=false \
    -Dc_args=-fsanitize=fuzzer-no-link
fi
ninja -C "${build_dir}" "${targets[@]/#/tests/fuzz/}"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}"

failed=0
for target in "${targets[@]}"; do
  name="${target#fuzz-}"
  corpus="${out_dir}/corpus/${target}"
  artifacts="${out_dir}/artifacts"
  log="${out_dir}/${target}.log"

  mkdir -p "${corpus}" "${artifacts}"
  cp -n tests/fuzz/corpus/"${name}"/* "${corpus}/" 2>/dev/null || true
  cp -n tests/fuzz/regressions/"${name}"/* "${corpus}/" 2>/dev/null || true

  echo "run-fuzzers: ${target} for ${seconds} s"
  status=0
  "${out_dir}/${target}" "${corpus}" \
    -max_total_time="${seconds}" \
    -rss_limit_mb=2048 \
    -timeout=30 \
    -print_final_stats=1 \
    -artifact_prefix="${artifacts}/${target}-" \
    > "${log}" 2>&1 || status=$?

  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "${log}" | grep -o '[0-9]*$' || echo "?")
  speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "${log}" | grep -o '[0-9]*$' || echo "?")
  echo "run-fuzzers: ${target}: ${runs} executions, ${speed}/s, corpus $(ls "${corpus}" | wc -l) inputs"

  if [[ ${status} -ne 0 ]]; then
    failed=1
    echo "run-fuzzers: ${target} FOUND A FAULT (exit ${status}); see ${log}:" >&2
    grep -E 'ERROR|SUMMARY|Test unit written' "${log}" | head -20 >&2 || true
  fi
done

exit "${failed}"
