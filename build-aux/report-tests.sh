#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Ends a test run: counts the results in meson's testlog.json and prints the
# closing line "N passed, N failed, N skipped", then exits 0 only when meson
# test succeeded, nothing failed and something ran. OK and EXPECTEDFAIL pass;
# FAIL, UNEXPECTEDPASS, TIMEOUT and ERROR fail; SKIP is skipped. The file
# holds one JSON object per line; a missing file counts nothing.
# Usage: report-tests.sh NAME TESTLOG MESON_TEST_STATUS
# Shared by run-tests.sh and run-sanitizers.sh.

set -uo pipefail

name="${1:?usage: report-tests.sh NAME TESTLOG MESON_TEST_STATUS}"
testlog="${2:?usage: report-tests.sh NAME TESTLOG MESON_TEST_STATUS}"
test_status="${3:-1}"

counts="0 0 0"
if [[ -f "${testlog}" ]]; then
  if [[ -x /usr/bin/python3 ]]; then
    counts="$(/usr/bin/python3 - "${testlog}" << 'EOF'
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
)"
  else
    counts="$({ grep -o '"result": *"[A-Z]*"' "${testlog}" || true; } | awk -F'"' '
      $4 == "OK" || $4 == "EXPECTEDFAIL" { p++ }
      $4 == "FAIL" || $4 == "UNEXPECTEDPASS" || $4 == "TIMEOUT" || $4 == "ERROR" { f++ }
      $4 == "SKIP" { s++ }
      END { print p + 0, f + 0, s + 0 }')"
  fi
fi
read -r passed failed skipped <<< "${counts}"

status=0
if [[ "${test_status}" -ne 0 ]]; then
  echo "${name}: meson test exited with status ${test_status}" >&2
  status=1
fi
if [[ "${failed}" -gt 0 ]]; then
  status=1
fi
if [[ $((passed + failed + skipped)) -eq 0 ]]; then
  echo "${name}: no test ran" >&2
  status=1
fi

echo "${passed} passed, ${failed} failed, ${skipped} skipped"
exit "${status}"
