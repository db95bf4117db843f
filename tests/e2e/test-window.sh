#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Drives the real window with xdotool the way a person would: builds a
# three-step workflow with clicks and typing, saves it with Ctrl+S and checks
# process.json; then runs the bundled example with the Run button and checks
# that the chart is previewed; then runs a step without code with the Run
# button while skele-fake-llm plays the coding agent. Screenshots are kept in
# $ARTIFACTS.
#
# TAP output; exits 77 (skipped) when the tools it needs are missing.

set -uo pipefail

: "${SKELE_CODE_BIN:?}"
: "${SKELE_EXAMPLES_DIR:?}"
: "${SKELE_FAKE_LLM_BIN:?}"
ARTIFACTS="${ARTIFACTS:-$(pwd)/e2e-artifacts}"
PYTHON=/usr/bin/python3

for tool in xdotool import convert "$PYTHON"; do
  if ! command -v "$tool" > /dev/null; then
    echo "1..0 # SKIP $tool is not installed"
    exit 0
  fi
done
if [[ -z "${DISPLAY:-}" ]]; then
  echo "1..0 # SKIP no display"
  exit 0
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/skele-e2e-XXXXXX")"
mkdir -p "$ARTIFACTS"
app_pid=""
fake_pid=""
cleanup() {
  [[ -n "$app_pid" ]] && kill "$app_pid" 2> /dev/null
  [[ -n "$fake_pid" ]] && kill "$fake_pid" 2> /dev/null
  wait 2> /dev/null
  rm -rf "$work"
}
trap cleanup EXIT

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; [[ $# -gt 1 ]] && echo "# $2"; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1" "${3:-}"; fi; }

echo "1..13"

# Starts the window on FOLDER and waits until it has drawn its first frame.
launch() {
  local title="$1"
  shift
  "$SKELE_CODE_BIN" "$@" > "$work/app-$title.log" 2>&1 &
  app_pid=$!
  WID=""
  for _ in $(seq 1 100); do
    WID="$(xdotool search --onlyvisible --name "^(• )?${title}\$" 2> /dev/null | head -1)"
    [[ -n "$WID" ]] && break
    sleep 0.1
  done
  [[ -z "$WID" ]] && return 1
  for _ in $(seq 1 50); do
    import -window "$WID" "$work/first.png" 2> /dev/null
    if [[ "$(convert "$work/first.png" -format '%k' info: 2> /dev/null)" -gt 50 ]]; then
      return 0
    fi
    sleep 0.1
  done
  return 1
}

quit() {
  kill "$app_pid" 2> /dev/null
  wait "$app_pid" 2> /dev/null
  app_pid=""
}

# Clicks at window coordinates; a modifier may be given as a third argument.
click() {
  local x="$1" y="$2" mod="${3:-}" button="${4:-1}"
  xdotool mousemove --window "$WID" "$x" "$y"
  sleep 0.15
  if [[ -n "$mod" ]]; then
    xdotool keydown "$mod" click "$button" keyup "$mod"
  else
    xdotool click "$button"
  fi
  # Keeps clicks at one place from becoming double clicks.
  sleep 0.5
}

# --- Part 1: a new workflow built by hand -----------------------------------

flow="$work/new-workflow"
if launch new-workflow "$flow"; then
  ok "the window opens on a new workflow"
else
  not_ok "the window opens on a new workflow" "$(cat "$work/app-new-workflow.log")"
  echo "# giving up"
  exit 1
fi

# The canvas fills the lower part of the window, right of the step list.
# Canvas coordinates start near (226, 452) in a 1280×800 window.
cx=226
cy=452
a_x=$((cx + 200)); a_y=$((cy + 90))
b_x=$((cx + 520)); b_y=$((cy + 90))
c_x=$((cx + 360)); c_y=$((cy + 280))

click $a_x $a_y
xdotool type --delay 15 'Read the numbers from numbers.csv'
click $b_x $b_y
xdotool type --delay 15 'Make up ten more numbers'
click $c_x $c_y
xdotool type --delay 15 'Add all the numbers and report the total'

# Ctrl-click A then C, and B then C: C needs the results of both.
click $a_x $a_y ctrl
click $c_x $c_y ctrl
click $b_x $b_y ctrl
click $c_x $c_y ctrl

# Right-click A: it is no longer marked to run.
click $a_x $a_y "" 3

# Alt-click C opens its properties; rename it.
click $c_x $c_y alt
sleep 1
xdotool key ctrl+a
xdotool type --delay 15 'add them up'
xdotool key Return
sleep 1

xdotool key ctrl+s
sleep 1
import -window "$WID" "$ARTIFACTS/new-workflow.png"

check "process.json was saved" "[[ -f '$flow/process.json' ]]"

report="$("$PYTHON" - "$flow/process.json" << 'PYEOF'
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    nodes = json.load(f)["nodes"]
by_name = {n["name"]: (i, n) for i, n in nodes.items()}
problems = []
# The first two steps are named from their tasks; the last was renamed.
if sorted(by_name) != ["Make up ten more numbers", "Read the numbers from", "add them up"]:
    problems.append("names: %s" % sorted(by_name))
else:
    a_id, a = by_name["Read the numbers from"]
    b_id, b = by_name["Make up ten more numbers"]
    c_id, c = by_name["add them up"]
    if a["input"]["text"] != "Read the numbers from numbers.csv":
        problems.append("task of step: %r" % a["input"]["text"])
    if b["input"]["text"] != "Make up ten more numbers":
        problems.append("task of step 2: %r" % b["input"]["text"])
    if c["input"]["text"] != "Add all the numbers and report the total":
        problems.append("task of the last step: %r" % c["input"]["text"])
    if sorted(c.get("priors", [])) != sorted([a_id, b_id]):
        problems.append("priors of the last step: %r" % c.get("priors"))
    if a.get("priors") or b.get("priors"):
        problems.append("unexpected priors")
    if [a.get("run"), b.get("run"), c.get("run")] != [False, True, True]:
        problems.append("run marks: %r" % [a.get("run"), b.get("run"), c.get("run")])
print("; ".join(problems) if problems else "ok")
PYEOF
)"
check "three steps were created" "[[ '$report' != names:* ]]" "$report"
check "the tasks, edges, run marks and new name were saved" "[[ '$report' == ok ]]" "$report"
check "the title shows no unsaved changes after saving" \
  "xdotool search --onlyvisible --name '^new-workflow\$' > /dev/null"

# Undo the rename with Ctrl+Z on the canvas; the title shows unsaved changes,
# and saving again writes the old name back.
click $((cx + 700)) $((cy + 300)) ctrl
xdotool key ctrl+z
sleep 0.5
check "Ctrl+Z makes the workflow unsaved again" \
  "xdotool search --onlyvisible --name '^.+ new-workflow\$' > /dev/null"
xdotool key ctrl+s
sleep 0.5
names="$("$PYTHON" -c 'import json, sys; print(sorted(n["name"] for n in json.load(open(sys.argv[1]))["nodes"].values()))' "$flow/process.json")"
check "undoing the rename restored the name the step had from its task" \
  "[[ \"\$names\" == *\"'Add all the numbers and report'\"* ]]" "$names"
quit

# --- Part 2: the example, run with the Run button ---------------------------

example="$work/sales-report"
cp -R "$SKELE_EXAMPLES_DIR/sales-report" "$example"
rm -f "$example/meson.build"
if launch "sales report" "$example"; then
  ok "the window opens on the example"
else
  not_ok "the window opens on the example" "$(cat "$work/app-sales report.log")"
  exit 1
fi

# The Run button sits left of the main menu button in the header bar.
click 1080 28
for _ in $(seq 1 240); do
  [[ -f "$example/sales_report/report.md" ]] && break
  sleep 0.25
done
sleep 2
check "Run produced the report" "[[ -f '$example/sales_report/report.md' ]]"

# Select "revenue chart", the fourth step in the step list.
click 88 220
sleep 2
import -window "$WID" "$ARTIFACTS/example-run.png"

# The result cell sits in the middle column; the chart's bars are blue.
convert "$ARTIFACTS/example-run.png" -crop 330x130+586+250 +repage "$work/preview.png"
blue="$(convert "$work/preview.png" -fx '(b > r + 0.2 && b > g + 0.05) ? 1 : 0' -format '%[fx:mean]' info:)"
check "the chart is previewed in the result cell" \
  "$PYTHON -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 0.02 else 1)' '$blue'" \
  "fraction of blue pixels in the preview area: $blue"

quit

# --- Part 3: a step without code, written by the coding agent ---------------

agent_flow="$work/numbers"
mkdir -p "$agent_flow"
cat > "$agent_flow/process.json" << 'JSONEOF'
{"process_name": "numbers",
 "nodes": {"1": {"name": "make numbers", "priors": [], "run": true,
                 "input": {"text": "Produce the numbers 1, 2 and 3 and say how many there are."}}}}
JSONEOF

# The model looks at the folder, writes the script, and says it is done.
"$PYTHON" - "$work/agent-scenario.json" << 'PYEOF'
import json, sys
script = """import os
import pickle

state = {}
HERE = os.path.dirname(os.path.abspath(__file__))

def preprocess(prior_outputs):
    with open(os.path.join(HERE, "make_numbers_summary.txt"), "w") as f:
        f.write("Produces three numbers.\\n")
    return True

def compute():
    state["output"] = {"task_status": "success", "numbers": [1, 2, 3]}
    with open(os.path.join(HERE, "make_numbers_summary.txt"), "a") as f:
        f.write("3 numbers produced\\nTask completed successfully\\n")

def save():
    with open(os.path.join(HERE, "make_numbers.pkl"), "wb") as f:
        pickle.dump(state["output"], f)
"""
def call(text, name, args):
    return {"usage": {"prompt_tokens": 1000, "completion_tokens": 100},
            "parts": [{"text": text},
                      {"tool_call": {"id": "call_" + name, "name": name,
                                     "arguments": [json.dumps(args)]}}]}
json.dump({"responses": [
    call("I look at the step's folder.", "list_dir", {"path": "."}),
    call("I write the script.", "write_file", {"path": "make_numbers.py", "content": script}),
    call("It works.", "task_complete", {"summary": "The script makes the numbers 1, 2 and 3."}),
]}, open(sys.argv[1], "w"))
PYEOF

"$SKELE_FAKE_LLM_BIN" --once "$work/agent-scenario.json" > "$work/fake.out" 2> "$work/fake.err" &
fake_pid=$!
fake_url=""
for _ in $(seq 1 50); do
  fake_url="$(sed -n 's/^OpenAI-compatible: //p' "$work/fake.out")"
  [[ -n "$fake_url" ]] && break
  sleep 0.1
done

if SKELE_LLM_PROVIDER=openai SKELE_LLM_BASE_URL="$fake_url" SKELE_LLM_MODEL=fake-coder \
   SKELE_LLM_API_KEY=e2e-key launch numbers "$agent_flow"; then
  ok "the window opens on a workflow without code"
else
  not_ok "the window opens on a workflow without code" "$(cat "$work/app-numbers.log")"
  exit 1
fi

click 1080 28
for _ in $(seq 1 120); do
  [[ -f "$agent_flow/make_numbers/make_numbers.pkl" ]] && break
  sleep 0.25
done
sleep 2
import -window "$WID" "$ARTIFACTS/agent-run.png"

check "Run had the agent write the script, then ran it" \
  "[[ -f '$agent_flow/make_numbers/make_numbers.py' && -f '$agent_flow/make_numbers/make_numbers.pkl' ]]" \
  "$(cat "$work/fake.err" "$agent_flow/make_numbers/.skele/agent.log" 2> /dev/null)"

saved="$("$PYTHON" - "$agent_flow/process.json" << 'PYEOF'
import json, sys
node = json.load(open(sys.argv[1], encoding="utf-8"))["nodes"]["1"]
tokens = node.get("skele", {}).get("tokens", {})
print("%s|%s|%s" % (tokens.get("prompt"), tokens.get("completion"),
                    "3 numbers produced" in node.get("output", {}).get("text", "")))
PYEOF
)"
check "the step's report and the agent's tokens were saved" "[[ '$saved' == '3000|300|True' ]]" "$saved"
quit

exit $((failed > 0))
