#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Uses the real window with the keyboard alone, as a person who does not use
# the mouse would, on screens of two sizes, light and dark: builds and
# connects three steps, goes through every cell and back with Escape, and
# checks that no script was written; opens a broken workflow and a
# 300-step one. Each part runs on an X server of its own size. Screenshots
# are kept in $ARTIFACTS.
#
# TAP output; skips when the tools it needs are missing.

set -uo pipefail

: "${SKELE_CODE_BIN:?}"
: "${SKELE_EXAMPLES_DIR:?}"
ARTIFACTS="${ARTIFACTS:-$(pwd)/e2e-artifacts}"
PYTHON=/usr/bin/python3

for tool in Xvfb xdotool import convert "$PYTHON"; do
  if ! command -v "$tool" > /dev/null; then
    echo "1..0 # SKIP $tool is not installed"
    exit 0
  fi
done

work="$(mktemp -d "${TMPDIR:-/tmp}/skele-keys-XXXXXX")"
mkdir -p "$ARTIFACTS"
app_pid=""
x_pid=""
cleanup() {
  [[ -n "$app_pid" ]] && kill "$app_pid" 2> /dev/null
  [[ -n "$x_pid" ]] && kill "$x_pid" 2> /dev/null
  wait 2> /dev/null
  rm -rf "$work"
}
trap cleanup EXIT

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; [[ $# -gt 1 ]] && echo "# $2" | head -20; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1" "${3:-}"; fi; }

echo "1..14"

# Starts an X server of SIZE (WxH) and makes it the display.
start_x() {
  local size="$1"
  SIZE="$size"
  exec 3> "$work/display"
  Xvfb -displayfd 3 -screen 0 "${size}x24" -nolisten tcp > "$work/xvfb.log" 2>&1 &
  x_pid=$!
  exec 3>&-
  for _ in $(seq 1 50); do
    [[ -s "$work/display" ]] && break
    sleep 0.1
  done
  export DISPLAY=":$(head -1 "$work/display")"
}

stop_x() {
  kill "$x_pid" 2> /dev/null
  wait "$x_pid" 2> /dev/null
  x_pid=""
  rm -f "$work/display"
}

# Starts the window on FOLDER with the window filling the screen, and waits
# until it has drawn its first frame. A third argument "dark" asks for the
# dark style.
launch() {
  local title="$1" folder="$2" style="${3:-}"
  if [[ "$style" == dark ]]; then
    ADW_DEBUG_COLOR_SCHEME=prefer-dark "$SKELE_CODE_BIN" "$folder" > "$work/app.log" 2>&1 &
  else
    ADW_DEBUG_COLOR_SCHEME=prefer-light "$SKELE_CODE_BIN" "$folder" > "$work/app.log" 2>&1 &
  fi
  app_pid=$!
  WID=""
  for _ in $(seq 1 100); do
    WID="$(xdotool search --onlyvisible --name "^(• )?${title}\$" 2> /dev/null | head -1)"
    [[ -n "$WID" ]] && break
    sleep 0.1
  done
  [[ -z "$WID" ]] && return 1
  xdotool windowsize "$WID" "${SIZE%x*}" "${SIZE#*x}"
  for _ in $(seq 1 50); do
    import -window root "$work/first.png" 2> /dev/null
    if [[ "$(convert "$work/first.png" -format '%k' info: 2> /dev/null)" -gt 50 ]]; then
      sleep 1
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

keys() {
  for key in "$@"; do
    xdotool key "$key"
    sleep 0.3
  done
}

type_text() {
  xdotool type --delay 15 "$1"
  sleep 0.3
}

# Selects the step whose name starts with TEXT with Ctrl+F, and gives the
# canvas the keyboard back.
find_step() {
  keys ctrl+f
  type_text "$1"
  keys Return Escape
}

shot() {
  import -window root "$ARTIFACTS/$1.png"
}

# Reads process.json of FOLDER and prints what the checks compare.
describe() {
  "$PYTHON" - "$1/process.json" << 'PYEOF'
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    nodes = json.load(f)["nodes"]
by_name = {n["name"]: (i, n) for i, n in nodes.items()}
out = ["names=" + "|".join(sorted(by_name))]
for name in sorted(by_name):
    i, node = by_name[name]
    priors = sorted(nodes[p]["name"] for p in node.get("priors", []) if p in nodes)
    out.append("%s<-%s:%s" % (name, ",".join(priors), node.get("input", {}).get("text", "")))
print(";".join(out))
PYEOF
}

# --- Part 1: three steps, with the keyboard alone, at 1024×700 --------------

start_x 1024x700
flow="$work/numbers"
if launch numbers "$flow"; then
  ok "the window opens on a new workflow at 1024×700"
else
  not_ok "the window opens on a new workflow at 1024×700" "$(cat "$work/app.log")"
  exit 1
fi

# N adds a step and puts the keyboard in its task; Escape comes back.
keys n
type_text 'Read the numbers from numbers.csv'
keys Escape
keys n
type_text 'Make up ten more numbers'
keys Escape
keys n
type_text 'Add all the numbers and report the total'
keys Escape

# C connects the selected step to the one chosen with Tab and Return.
find_step 'Read'
keys c Tab Tab Return
find_step 'Make'
keys c Tab Return
shot keyboard-1024-light
keys ctrl+s
sleep 1

expected='names=Add all the numbers and report|Make up ten more numbers|Read the numbers from'
expected+=';Add all the numbers and report<-Make up ten more numbers,Read the numbers from:Add all the numbers and report the total'
expected+=';Make up ten more numbers<-:Make up ten more numbers'
expected+=';Read the numbers from<-:Read the numbers from numbers.csv'
report="$(describe "$flow" 2>&1)"
check "three steps, named from their tasks, were made and connected with the keyboard" \
  "[[ \"\$report\" == \"\$expected\" ]]" "$report"

# Escape comes back to the canvas from each cell: from the task, from the
# result (three Tabs on) and from the code (four Tabs on, where Tab moves on
# instead of indenting). Back on the canvas, N adds a step; in a text it
# would be typed.
for tabs in 0 3 4; do
  find_step 'Add all'
  keys Return
  for _ in $(seq 1 "$tabs"); do
    keys Tab
  done
  [[ "$tabs" == 4 ]] && shot keyboard-in-code
  keys Escape n Escape
done
keys ctrl+s
sleep 1
report="$(describe "$flow" 2>&1)"
check "Escape brought the keyboard back to the canvas from each cell" \
  "[[ \"\$report\" == 'names=Add all the numbers and report|Make up ten more numbers|Read the numbers from|step|step 2|step 3;'* ]]" "$report"
check "nothing was typed into a task on the way" \
  "[[ \"\$report\" == *':Add all the numbers and report the total;'* ]]" "$report"
scripts="$(find "$flow" -name '*.py' | sort)"
check "no script was written by moving through the cells" "[[ -z \"\$scripts\" ]]" "$scripts"

# Ctrl+Z undoes the steps just added.
keys ctrl+z ctrl+z ctrl+z ctrl+s
sleep 1
report="$(describe "$flow" 2>&1)"
check "Ctrl+Z took the added steps away" "[[ \"\$report\" == \"\$expected\" ]]" "$report"
quit

# Tabbing through the cells of a step that has code leaves its script as it
# was: Tab moves on from the code view until Return starts editing there.
example="$work/sales-report"
cp -R "$SKELE_EXAMPLES_DIR/sales-report" "$example"
rm -f "$example/meson.build"
find "$example" -name '*.py' -exec touch -d '2020-01-01 00:00' {} +
(cd "$example" && find . -name '*.py' -exec md5sum {} + | sort > "$work/scripts-before")
if launch "sales report" "$example"; then
  find_step 'monthly'
  keys Return
  for _ in $(seq 1 8); do
    keys Tab
  done
  keys Escape Escape
  find_step 'revenue by'
  keys Return
  for _ in $(seq 1 8); do
    keys Tab
  done
  keys Escape Escape
  sleep 1
  (cd "$example" && find . -name '*.py' -exec md5sum {} + | sort > "$work/scripts-after")
  touched="$(find "$example" -name '*.py' -newermt '2020-01-02')"
  check "Tab through the code cells wrote no script" \
    "cmp -s '$work/scripts-before' '$work/scripts-after' && [[ -z \"\$touched\" ]]" \
    "$(diff "$work/scripts-before" "$work/scripts-after") $touched"
else
  not_ok "Tab through the code cells wrote no script" "$(cat "$work/app.log")"
fi
quit
stop_x

# --- Part 2: a broken workflow, at 1920×1080 in the dark style ---------------

start_x 1920x1080
broken="$work/broken"
mkdir -p "$broken"
cat > "$broken/process.json" << 'JSONEOF'
{"process_name": "broken",
 "nodes": {"1": {"name": "load", "priors": ["2"], "input": {"text": "Load the data"}},
           "2": {"name": "clean", "priors": ["1"], "input": {"text": "Clean it"}},
           "3": {"name": "chart", "priors": ["9"], "input": {"text": "Draw a chart"}},
           "4": {"name": "Chart", "priors": [], "input": {"text": "Draw another"}}}}
JSONEOF
cp "$broken/process.json" "$work/broken-before.json"
if launch broken "$broken" dark; then
  ok "a broken workflow opens at 1920×1080 in the dark style"
else
  not_ok "a broken workflow opens at 1920×1080 in the dark style" "$(cat "$work/app.log")"
fi
shot broken-1920-dark

# The problems bar is red, over the top of the canvas.
convert "$ARTIFACTS/broken-1920-dark.png" -crop 900x200+700+500 +repage "$work/bar.png"
red="$(convert "$work/bar.png" -fx '(r > 0.6 && g < 0.35 && b < 0.35) ? 1 : 0' -format '%[fx:mean]' info:)"
check "the problems are shown over the canvas" \
  "$PYTHON -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 0.01 else 1)' '$red'" \
  "fraction of red pixels where the bar is: $red"

# A fix is taken even while other problems remain: the step with the name
# that makes the same folder as another is removed.
find_step 'Chart'
keys Delete ctrl+s
sleep 1
report="$(describe "$broken" 2>&1)"
check "a step was removed from the broken workflow and it was saved" \
  "[[ \"\$report\" =~ ^names=[cC]hart\\|clean\\|load\; ]]" "$report"
quit
stop_x

# --- Part 3: 300 steps, at both sizes ----------------------------------------

big="$work/big"
mkdir -p "$big"
"$PYTHON" - "$big/process.json" << 'PYEOF'
import json, sys
nodes = {}
for i in range(1, 301):
    priors = [str(i - 1)] if i > 1 and i % 10 != 1 else ([str(i - 10)] if i > 10 else [])
    nodes[str(i)] = {"name": "step %d" % i, "priors": priors,
                     "input": {"text": "Task number %d" % i},
                     "skele": {"x": (i - 1) % 10 * 220, "y": (i - 1) // 10 * 120}}
json.dump({"process_name": "big", "nodes": nodes}, open(sys.argv[1], "w"))
PYEOF

for setting in "1024x700 dark" "1920x1080 light"; do
  read -r size style <<< "$setting"
  start_x "$size"
  if launch big "$big" "$style"; then
    ok "a 300-step workflow opens at $size in the $style style"
  else
    not_ok "a 300-step workflow opens at $size in the $style style" "$(cat "$work/app.log")"
    stop_x
    continue
  fi
  keys ctrl+1
  sleep 1
  shot "big-$size-$style-fit"
  find_step 'step 250'
  sleep 1
  shot "big-$size-$style-found"
  check "the window is still there after Fit and Find at $size" "kill -0 $app_pid 2> /dev/null"
  quit
  stop_x
done

exit $((failed > 0))
