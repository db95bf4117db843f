#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# An approval gate in the real window, used with the mouse as a person
# would: runs a three-step workflow with the Run button, sees the run stop
# before the gate and the gate drawn in orange on the canvas, clicks the
# gate, writes a note in its approval panel and clicks Approve, and sees the
# steps after the gate run. The buttons are found in screenshots by their
# colours, not at fixed places. Runs on an X server of its own; screenshots
# are kept in $ARTIFACTS.
#
# TAP output; skips when the tools it needs are missing.

set -uo pipefail

: "${SKELE_CODE_BIN:?}"
ARTIFACTS="${ARTIFACTS:-$(pwd)/e2e-artifacts}"
PYTHON=/usr/bin/python3

for tool in Xvfb xdotool import convert "$PYTHON"; do
  if ! command -v "$tool" > /dev/null; then
    echo "1..0 # SKIP $tool is not installed"
    exit 0
  fi
done

work="$(mktemp -d "${TMPDIR:-/tmp}/skele-gate-XXXXXX")"
mkdir -p "$ARTIFACTS"
app_pid=""
x_pid=""
cleanup() {
  [[ -n "$app_pid" ]] && kill "$app_pid" 2> /dev/null
  [[ -n "$x_pid" ]] && kill "$x_pid" 2> /dev/null
  wait 2> /dev/null
  [[ -n "${KEEP_WORK:-}" ]] || rm -rf "$work"
}
trap cleanup EXIT

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; [[ $# -gt 1 ]] && echo "$2" | head -30 | sed 's/^/# /'; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1" "${3:-}"; fi; }
give_up() {
  echo "# giving up: the steps after this one need it"
  cp "$work/app.log" "$ARTIFACTS/gate-app.log" 2> /dev/null
  exit 1
}

echo "1..10"

exec 3> "$work/display"
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp > "$work/xvfb.log" 2>&1 &
x_pid=$!
exec 3>&-
for _ in $(seq 1 50); do
  [[ -s "$work/display" ]] && break
  sleep 0.1
done
export DISPLAY=":$(head -1 "$work/display")"

# Settings of the test's own, so that the developer's are never read; the
# steps run with Debian's interpreter, in the sandbox where there is one.
export GSETTINGS_BACKEND=keyfile
export XDG_CONFIG_HOME="$work/config"
export XDG_DATA_HOME="$work/data"
export XDG_STATE_HOME="$work/state"
export XDG_CACHE_HOME="$work/cache"
export GSK_RENDERER=cairo
export ADW_DEBUG_COLOR_SCHEME=prefer-light
export SKELE_SANDBOX="${SKELE_SANDBOX:-when-available}"
mkdir -p "$XDG_CONFIG_HOME/glib-2.0/settings"
printf "[io/github/skelecode/SkeleCode]\npython='%s'\n" "$PYTHON" \
  > "$XDG_CONFIG_HOME/glib-2.0/settings/keyfile"

# Three steps in a row; the one in the middle is an approval gate.
flow="$work/release"
mkdir -p "$flow"
cat > "$flow/process.json" << 'JSONEOF'
{"process_name": "release",
 "nodes": {
  "1": {"name": "prepare", "priors": [], "run": true, "skele": {"x": 100, "y": 80},
        "input": {"text": "Prepare the release notes."}},
  "2": {"name": "gate", "priors": ["1"], "run": true,
        "skele": {"x": 100, "y": 230, "approval": true},
        "input": {"text": "A person reads the notes before they are published."}},
  "3": {"name": "publish", "priors": ["2"], "run": true, "skele": {"x": 100, "y": 380},
        "input": {"text": "Publish the notes."}}}}
JSONEOF
for key in prepare gate publish; do
  mkdir -p "$flow/$key"
  sed "s/@KEY@/$key/" > "$flow/$key/$key.py" << 'PYEOF'
import os
import pickle

KEY = "@KEY@"
FOLDER = os.path.dirname(os.path.abspath(__file__))

state = {}


def preprocess(prior_outputs):
    state["priors"] = prior_outputs
    with open(os.path.join(FOLDER, KEY + "_summary.txt"), "w") as f:
        f.write("Step " + KEY + " after " + (", ".join(sorted(prior_outputs)) or "nothing") + ".\n")
    return True


def compute():
    state["output"] = {"task_status": "success", "value": len(state["priors"]) + 1}
    with open(os.path.join(FOLDER, KEY + "_summary.txt"), "a") as f:
        f.write("Task completed successfully\n")


def save():
    with open(os.path.join(FOLDER, KEY + ".pkl"), "wb") as f:
        pickle.dump(state["output"], f)
PYEOF
done

# The status in a step's run record, or "none".
status() {
  "$PYTHON" - "$flow/$1/.skele/record.json" << 'PYEOF'
import json, sys
try:
    print(json.load(open(sys.argv[1], encoding="utf-8")).get("status", "none"))
except (OSError, ValueError):
    print("none")
PYEOF
}

# Waits up to SECONDS until COMMAND succeeds.
wait_for() {
  local seconds="$1"
  shift
  for _ in $(seq 1 $((seconds * 5))); do
    eval "$1" && return 0
    sleep 0.2
  done
  return 1
}

shot() {
  import -window "$WID" "$ARTIFACTS/gate-$1.png" 2> /dev/null
}

# Prints "CX CY X Y W H" for each patch of at least 600 pixels of COLOUR in
# a screenshot: a button's background, not a word written in that colour.
patches() {
  convert "$1" -fuzz 8% -fill black +opaque "$2" -fill white -opaque "$2" \
    -define connected-components:verbose=true -define connected-components:area-threshold=600 \
    -connected-components 8 null: 2> /dev/null |
    awk '/srgb\(255,255,255\)/ {
      split($2, box, /[x+]/); split($3, centre, ",");
      printf "%d %d %d %d %d %d\n", centre[1], centre[2], box[3], box[4], box[1], box[2] }'
}

# Counts the pixels of COLOUR in a screenshot.
pixels() {
  convert "$1" -fuzz 8% -fill black +opaque "$2" -fill white -opaque "$2" \
    -format '%[fx:int(mean*w*h+0.5)]' info: 2> /dev/null
}

# Clicks at window coordinates, then waits long enough that the next click
# at the same place is no double click.
click() {
  xdotool mousemove --window "$WID" "$1" "$2"
  sleep 0.15
  xdotool click 1
  sleep 0.5
}

"$SKELE_CODE_BIN" "$flow" > "$work/app.log" 2>&1 &
app_pid=$!
WID=""
for _ in $(seq 1 100); do
  WID="$(xdotool search --onlyvisible --name "^(• )?release\$" 2> /dev/null | head -1)"
  [[ -n "$WID" ]] && break
  sleep 0.1
done
if [[ -z "$WID" ]]; then
  not_ok "the window opens" "$(cat "$work/app.log")"
  give_up
fi
xdotool windowsize "$WID" 1280 800
if ! wait_for 10 'shot start && [[ "$(convert "$ARTIFACTS/gate-start.png" -format "%k" info: 2> /dev/null)" -gt 50 ]]'; then
  not_ok "the window opens" "it drew nothing in 10 s; $(cat "$work/app.log")"
  give_up
fi
sleep 1
shot start
ok "the window opens"

# The Run button is the only suggested-action button in the header bar,
# whose height is under 47 pixels.
suggested='#3584e4'
destructive='#e01b24'
gate_colour='#ff7800'
read -r run_x run_y _ < <(patches "$ARTIFACTS/gate-start.png" "$suggested" | awk '$2 < 47' | head -1)
if [[ -z "${run_x:-}" ]]; then
  not_ok "the Run button is in the header bar" "no patch of $suggested above y = 47 in gate-start.png"
  give_up
fi
ok "the Run button is in the header bar, at ($run_x, $run_y)"
click "$run_x" "$run_y"

wait_for 30 '[[ "$(status gate)" == waiting ]]'
# The canvas draws the state change on its next frame.
sleep 1
shot waiting
check "the run stops before the gate" \
  "[[ '$(status prepare)' == success && '$(status gate)' == waiting && ! -e '$flow/publish/publish.pkl' ]]" \
  "prepare: $(status prepare), gate: $(status gate), publish: $(status publish); $(cat "$work/app.log")"

orange="$(pixels "$ARTIFACTS/gate-waiting.png" "$gate_colour")"
check "the waiting gate is drawn in orange on the canvas" "[[ '${orange:-0}' -gt 200 ]]" \
  "$orange pixels of $gate_colour in gate-waiting.png"

# The orange outline surrounds the gate: click in its middle.
read -r gate_w gate_h gate_x gate_y < <(convert "$ARTIFACTS/gate-waiting.png" -fuzz 8% \
  -fill black +opaque "$gate_colour" -fill white -opaque "$gate_colour" -format '%@' info: 2> /dev/null |
  tr 'x+' '  ')
if [[ -z "${gate_y:-}" || "${orange:-0}" -le 200 ]]; then
  echo "# giving up: the gate cannot be found on the canvas"
  exit 1
fi
click $((gate_x + gate_w / 2)) $((gate_y + gate_h / 2))

# Deny and Approve sit side by side under the Note entry: the only
# destructive-action patch, and the suggested-action patch in its row.
deny=""
approve=""
for _ in $(seq 1 25); do
  shot selected
  deny="$(patches "$ARTIFACTS/gate-selected.png" "$destructive" | head -1)"
  if [[ -n "$deny" ]]; then
    read -r deny_x deny_y _ deny_top _ <<< "$deny"
    approve="$(patches "$ARTIFACTS/gate-selected.png" "$suggested" |
      awk -v x="$deny_x" -v y="$deny_y" '$1 > x && $2 >= y - 4 && $2 <= y + 4' | head -1)"
    [[ -n "$approve" ]] && break
  fi
  sleep 0.2
done
if [[ -z "$approve" ]]; then
  not_ok "clicking the gate shows its approval panel with Deny and Approve" \
    "destructive patches: $(patches "$ARTIFACTS/gate-selected.png" "$destructive" | tr '\n' ';')
suggested patches: $(patches "$ARTIFACTS/gate-selected.png" "$suggested" | tr '\n' ';')"
  give_up
fi
read -r approve_x approve_y _ <<< "$approve"
ok "clicking the gate shows its approval panel with Deny ($deny_x, $deny_y) and Approve ($approve_x, $approve_y)"

# The Note entry is as high as the buttons, 8 pixels above them.
note='Read and approved by the end-to-end test'
click "$deny_x" $((deny_top - 25))
xdotool type --delay 15 "$note"
sleep 0.5
shot note
check "writing the note decides nothing yet" "[[ ! -e '$flow/gate/.skele/approval.json' && '$(status gate)' == waiting ]]" \
  "$(cat "$flow/gate/.skele/approval.json" 2> /dev/null)"
click "$approve_x" "$approve_y"

decided() {
  "$PYTHON" - "$flow/gate/.skele/approval.json" "$note" << 'PYEOF'
import json, sys
try:
    decision = json.load(open(sys.argv[1], encoding="utf-8"))
except (OSError, ValueError):
    sys.exit(1)
sys.exit(0 if decision.get("decision") == "approved" and decision.get("note") == sys.argv[2] else 1)
PYEOF
}
wait_for 60 'decided && [[ "$(status publish)" == success ]]'
sleep 1
shot approved
check "Approve keeps the decision with the note" "decided" \
  "$(cat "$flow/gate/.skele/approval.json" 2> /dev/null || echo 'no approval.json')"
check "the gate and the step after it ran and succeeded" \
  "[[ '$(status gate)' == success && '$(status publish)' == success && -e '$flow/publish/publish.pkl' ]]" \
  "gate: $(status gate), publish: $(status publish); $(cat "$work/app.log")"

orange="$(pixels "$ARTIFACTS/gate-approved.png" "$gate_colour")"
check "no orange is left once the gate is approved" "[[ '${orange:-0}' -lt 20 ]]" \
  "$orange pixels of $gate_colour in gate-approved.png"

cp "$work/app.log" "$ARTIFACTS/gate-app.log"
check "the window logged no warnings" "! grep -E 'CRITICAL|WARNING' '$work/app.log'" "$(cat "$work/app.log")"

kill "$app_pid" 2> /dev/null
wait "$app_pid" 2> /dev/null
app_pid=""

exit $((failed > 0))
