#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Runs one libFuzzer target for a bounded time, as the test "TARGET" of the
# "fuzz" suite (tests/fuzz/meson.build registers one per target).
#
#   run-fuzz-target.sh PROGRAM TARGET SOURCE_DIR BUILD_DIR
#
# The target runs for $SKELE_FUZZ_SECONDS seconds (default 60) on its working
# corpus, BUILD_DIR/corpus/TARGET, seeded from SOURCE_DIR/corpus/NAME and
# SOURCE_DIR/regressions/NAME (NAME is TARGET without "fuzz-"); libFuzzer runs
# every input already there first, so the regressions are checked each time.
# Its output goes to BUILD_DIR/TARGET.log. A crash, leak, timeout or sanitizer
# report fails the test and names the input that caused it, which libFuzzer
# writes to BUILD_DIR/artifacts/.

set -uo pipefail

program="${1:?usage: run-fuzz-target.sh PROGRAM TARGET SOURCE_DIR BUILD_DIR}"
target="${2:?usage: run-fuzz-target.sh PROGRAM TARGET SOURCE_DIR BUILD_DIR}"
source_dir="${3:?usage: run-fuzz-target.sh PROGRAM TARGET SOURCE_DIR BUILD_DIR}"
build_dir="${4:?usage: run-fuzz-target.sh PROGRAM TARGET SOURCE_DIR BUILD_DIR}"

seconds="${SKELE_FUZZ_SECONDS:-60}"
if ! [[ "${seconds}" =~ ^[1-9][0-9]*$ ]]; then
  echo "${target}: SKELE_FUZZ_SECONDS must be a whole number of seconds, not '${seconds}'" >&2
  exit 1
fi

name="${target#fuzz-}"
corpus="${build_dir}/corpus/${target}"
artifacts="${build_dir}/artifacts"
log="${build_dir}/${target}.log"

mkdir -p "${corpus}" "${artifacts}" || exit 1
rm -f "${log}"
# -n keeps what earlier runs learnt: the working corpus only grows.
for seeds in "${source_dir}/corpus/${name}" "${source_dir}/regressions/${name}"; do
  if [[ -d "${seeds}" ]]; then
    cp -n "${seeds}"/* "${corpus}/" 2> /dev/null || true
  fi
done

# Explicit, so that meson's defaults or the caller's settings do not change
# what counts as a finding.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:halt_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"

# libFuzzer stops itself after -max_total_time and kills an input that takes
# longer than -timeout; the outer timeout only guards against a target that
# hangs outside an input, for instance while it starts.
status=0
timeout --kill-after=30 $((seconds + 300)) \
  "${program}" "${corpus}" \
    -max_total_time="${seconds}" \
    -rss_limit_mb=2048 \
    -timeout=30 \
    -print_final_stats=1 \
    -artifact_prefix="${artifacts}/${target}-" \
    > "${log}" 2>&1 || status=$?

runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "${log}" | grep -o '[0-9]*$' | tail -n 1)"
speed="$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "${log}" | grep -o '[0-9]*$' | tail -n 1)"
inputs="$(find "${corpus}" -maxdepth 1 -type f | wc -l)"
# Also at the end of the log, where build-aux/run-fuzzers.sh reads it.
echo "${target}: ${runs:-?} executions (${speed:-?}/s), corpus ${inputs} inputs" \
  | tee -a "${log}"

if [[ ${status} -eq 0 ]]; then
  exit 0
fi

if [[ ${status} -eq 124 || ${status} -eq 137 ]]; then
  echo "${target}: did not stop within $((seconds + 300)) s; see ${log}" >&2
else
  echo "${target}: FOUND A FAULT (exit ${status}); the whole output is in ${log}" >&2
fi
# A GLib warning or critical, which the target turns into an abort, then the
# sanitizer's or libFuzzer's report with the stack of the fault.
grep -E -- '-(WARNING|CRITICAL) \*\*|^\*\*' "${log}" | head -n 5 >&2
sed -n '/^==[0-9]*== *ERROR/,/^SUMMARY/p' "${log}" | head -n 80 >&2
artifact="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "${log}" | tail -n 1)"
if [[ -n "${artifact}" ]]; then
  echo "${target}: the input that caused it: ${artifact}" >&2
  echo "${target}: reproduce it with: ${program} ${artifact}" >&2
else
  echo "${target}: libFuzzer saved no input; the end of its output:" >&2
  tail -n 20 "${log}" >&2
fi
exit 1
