#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Counts the results in a meson testlog.json: prints "PASSED FAILED SKIPPED".
# OK and EXPECTEDFAIL pass; FAIL, UNEXPECTEDPASS, TIMEOUT and ERROR fail;
# SKIP is skipped. The file holds one JSON object per line; a missing file
# counts nothing. Shared by run-tests.sh and run-sanitizers.sh.

set -euo pipefail

testlog="${1:?usage: count-tests.sh TESTLOG}"

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
echo "${counts}"
