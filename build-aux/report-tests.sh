#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Ends a test run: counts the results in one or more of meson's testlog.json
# files and prints their sum as the closing line "N passed, N failed, N
# skipped", then exits 0 only when every meson test succeeded, nothing failed
# and every part ran something. OK and EXPECTEDFAIL pass; FAIL,
# UNEXPECTEDPASS, TIMEOUT and ERROR fail; SKIP is skipped. Each file holds one
# JSON object per line. A part whose file is missing or counts nothing did not
# run (its build failed, or a tool it needs is missing): it counts as one
# failure, so that a part cannot drop out of the count unnoticed.
# Usage: report-tests.sh NAME TESTLOG MESON_TEST_STATUS [TESTLOG MESON_TEST_STATUS]...
# Shared by run-tests.sh, run-sanitizers.sh and run-fuzzers.sh.

set -uo pipefail

usage="usage: report-tests.sh NAME TESTLOG MESON_TEST_STATUS [TESTLOG MESON_TEST_STATUS]..."
name="${1:?${usage}}"
shift
[[ $# -ge 1 ]] || { echo "${usage}" >&2; exit 2; }

count() {
  local testlog="$1"

  if [[ ! -f "${testlog}" ]]; then
    echo "0 0 0"
  elif [[ -x /usr/bin/python3 ]]; then
    /usr/bin/python3 - "${testlog}" << 'EOF'
import json
import sys

passed = failed = skipped = 0
with open(sys.argv[1], encoding="utf-8", errors="replace") as log:
    for line in log:
        line = line.strip()
        if not line:
            continue
        try:
            result = json.loads(line).get("result")
        except (ValueError, AttributeError):
            continue
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result in ("FAIL", "UNEXPECTEDPASS", "TIMEOUT", "ERROR"):
            failed += 1
        elif result == "SKIP":
            skipped += 1
print(passed, failed, skipped)
EOF
  else
    { grep -o '"result": *"[A-Z]*"' "${testlog}" || true; } | awk -F'"' '
      $4 == "OK" || $4 == "EXPECTEDFAIL" { p++ }
      $4 == "FAIL" || $4 == "UNEXPECTEDPASS" || $4 == "TIMEOUT" || $4 == "ERROR" { f++ }
      $4 == "SKIP" { s++ }
      END { print p + 0, f + 0, s + 0 }'
  fi
}

passed=0
failed=0
skipped=0
status=0
while [[ $# -gt 0 ]]; do
  testlog="$1"
  test_status="${2:-1}"
  shift 2 2> /dev/null || shift

  read -r p f s <<< "$(count "${testlog}")"
  if [[ ! "${test_status}" =~ ^[0-9]+$ || "${test_status}" -ne 0 ]]; then
    echo "${name}: ${testlog}: meson test or the build exited with status ${test_status}" >&2
    status=1
  fi
  if [[ $((p + f + s)) -eq 0 ]]; then
    echo "${name}: ${testlog}: no test ran; counted as one failure" >&2
    f=1
  fi
  if [[ "${f}" -gt 0 ]]; then
    status=1
  fi
  passed=$((passed + p))
  failed=$((failed + f))
  skipped=$((skipped + s))
done

echo "${passed} passed, ${failed} failed, ${skipped} skipped"
exit "${status}"
