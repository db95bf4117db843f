#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Chat mode in the real window, driven with xdotool while skele-fake-llm
# plays the chat agent: opens the chat with its shortcut, types a request,
# sees the proposal drawn on the canvas, turns one proposed step off,
# accepts the rest, and takes it all back with one Ctrl+Z. Runs on an X
# server of its own; screenshots are kept in $ARTIFACTS.
#
# TAP output; skips when the tools it needs are missing.

set -uo pipefail

: "${SKELE_CODE_BIN:?}"
: "${SKELE_FAKE_LLM_BIN:?}"
ARTIFACTS="${ARTIFACTS:-$(pwd)/e2e-artifacts}"
PYTHON=/usr/bin/python3

for tool in Xvfb xdotool import convert "$PYTHON"; do
  if ! command -v "$tool" > /dev/null; then
    echo "1..0 # SKIP $tool is not installed"
    exit 0
  fi
done

work="$(mktemp -d "${TMPDIR:-/tmp}/skele-chat-XXXXXX")"
mkdir -p "$ARTIFACTS"
app_pid=""
x_pid=""
fake_pid=""
cleanup() {
  [[ -n "$app_pid" ]] && kill "$app_pid" 2> /dev/null
  [[ -n "$fake_pid" ]] && kill "$fake_pid" 2> /dev/null
  [[ -n "$x_pid" ]] && kill "$x_pid" 2> /dev/null
  wait 2> /dev/null
  [[ -n "${KEEP_WORK:-}" ]] || rm -rf "$work"
}
trap cleanup EXIT

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; [[ $# -gt 1 ]] && echo "# $2" | head -30; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1" "${3:-}"; fi; }

echo "1..7"

exec 3> "$work/display"
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp > "$work/xvfb.log" 2>&1 &
x_pid=$!
exec 3>&-
for _ in $(seq 1 50); do
  [[ -s "$work/display" ]] && break
  sleep 0.1
done
export DISPLAY=":$(head -1 "$work/display")"

# Settings of the test's own, so that the developer's are never read.
export GSETTINGS_BACKEND=keyfile
export XDG_CONFIG_HOME="$work/config"
export XDG_DATA_HOME="$work/data"
export XDG_STATE_HOME="$work/state"
export XDG_CACHE_HOME="$work/cache"
export GSK_RENDERER=cairo
export ADW_DEBUG_COLOR_SCHEME=prefer-light

flow="$work/numbers"
mkdir -p "$flow"
cat > "$flow/process.json" << 'JSONEOF'
{"process_name": "numbers",
 "nodes": {
  "1": {"name": "load numbers", "priors": [], "run": true, "skele": {"x": 100, "y": 80},
        "input": {"text": "Read the numbers from numbers.csv."}},
  "2": {"name": "add them up", "priors": ["1"], "run": true, "skele": {"x": 100, "y": 240},
        "input": {"text": "Add the numbers and report the total."}}}}
JSONEOF
cp "$flow/process.json" "$work/original.json"

# The model proposes two steps, one call at a time, then sums up.
"$PYTHON" - "$work/chat-scenario.json" << 'PYEOF'
import json, sys
def call(name, args):
    return {"usage": {"prompt_tokens": 900, "completion_tokens": 60},
            "parts": [{"tool_call": {"id": "call_" + name, "name": name,
                                     "arguments": [json.dumps(args)]}}]}
json.dump({"responses": [
    call("add_step", {"name": "plot the numbers", "task": "Draw a bar chart of the numbers.",
                      "priors": ["1"]}),
    call("add_step", {"name": "write a report", "task": "Write a short report with the total.",
                      "priors": ["add_them_up"]}),
    call("finish", {"summary": "I propose two steps: a chart of the numbers and a short report."}),
]}, open(sys.argv[1], "w"))
PYEOF

"$SKELE_FAKE_LLM_BIN" --once "$work/chat-scenario.json" > "$work/fake.out" 2> "$work/fake.err" &
fake_pid=$!
fake_url=""
for _ in $(seq 1 50); do
  fake_url="$(sed -n 's/^OpenAI-compatible: //p' "$work/fake.out")"
  [[ -n "$fake_url" ]] && break
  sleep 0.1
done

SKELE_LLM_PROVIDER=openai SKELE_LLM_BASE_URL="$fake_url" SKELE_LLM_MODEL=fake-chat SKELE_LLM_API_KEY=e2e-key \
  "$SKELE_CODE_BIN" "$flow" > "$work/app.log" 2>&1 &
app_pid=$!
WID=""
for _ in $(seq 1 100); do
  WID="$(xdotool search --onlyvisible --name "^(• )?numbers\$" 2> /dev/null | head -1)"
  [[ -n "$WID" ]] && break
  sleep 0.1
done
if [[ -z "$WID" ]]; then
  not_ok "the window opens" "$(cat "$work/app.log")"
  exit 1
fi
xdotool windowsize "$WID" 1280 800
sleep 2
ok "the window opens"

# Counts the pixels of the accent colour in the canvas's part of a
# screenshot: the proposal is drawn in it.
accent_pixels() {
  convert "$1" -crop 700x330+230+440 +repage -fuzz 12% -fill black +opaque '#3584e4' \
    -fill white -opaque '#3584e4' -format '%[fx:int(mean*w*h)]' info: 2> /dev/null
}

import -window root "$ARTIFACTS/chat-before.png"
before="$(accent_pixels "$ARTIFACTS/chat-before.png")"

xdotool key ctrl+shift+c
sleep 1
xdotool type --delay 15 'Add a chart of the numbers and a short report.'
sleep 0.3
xdotool key Return

for _ in $(seq 1 100); do
  grep -q '"assistant"' "$flow/.skele/chat.json" 2> /dev/null && break
  sleep 0.2
done
sleep 1.5
import -window root "$ARTIFACTS/chat-proposal.png"
after="$(accent_pixels "$ARTIFACTS/chat-proposal.png")"

check "the answer is kept in the workflow's conversation" \
  "grep -q 'I propose two steps' '$flow/.skele/chat.json'" "$(cat "$work/app.log" "$work/fake.err")"
check "the proposal is drawn on the canvas" "[[ '${after:-0}' -gt $((${before:-0} + 500)) ]]" \
  "accent pixels before: $before, after: $after"
check "nothing changed on disk before accepting" "cmp -s '$flow/process.json' '$work/original.json'"

# The keyboard stays in the message entry; back over Accept and Reject to
# the last proposed step, which Space turns off; then on to Accept and
# Return.
xdotool key shift+Tab
sleep 0.3
xdotool key shift+Tab
sleep 0.3
xdotool key shift+Tab
sleep 0.3
xdotool key space
sleep 0.5
import -window root "$ARTIFACTS/chat-one-off.png"
xdotool key Tab
sleep 0.3
xdotool key Tab
sleep 0.3
xdotool key Return
sleep 1
xdotool key ctrl+s
sleep 1.5
import -window root "$ARTIFACTS/chat-accepted.png"

steps() {
  "$PYTHON" -c 'import json,sys; print(",".join(sorted(n["name"] for n in json.load(open(sys.argv[1]))["nodes"].values())))' "$1"
}
accepted="$(steps "$flow/process.json")"
check "one proposed step was accepted and the other left out" \
  "[[ '$accepted' == 'add them up,load numbers,plot the numbers' || '$accepted' == 'add them up,load numbers,write a report' ]]" \
  "steps now: $accepted"

# Ctrl+Z on the canvas, once, takes the whole proposal back.
xdotool key ctrl+z
sleep 1
xdotool key ctrl+s
sleep 1.5
import -window root "$ARTIFACTS/chat-undone.png"
undone="$(steps "$flow/process.json")"
check "one Ctrl+Z undoes the accepted proposal" "[[ '$undone' == 'add them up,load numbers' ]]" "steps now: $undone"

check "the window logged no warnings" "! grep -E 'CRITICAL|WARNING' '$work/app.log'" "$(cat "$work/app.log")"

kill "$app_pid" 2> /dev/null
wait "$app_pid" 2> /dev/null
app_pid=""

exit $((failed > 0))
