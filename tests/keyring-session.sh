#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# keyring-session.sh TEST [ARGS...]
#
# Runs TEST against a real Secret Service of its own: a private D-Bus session
# bus (dbus-run-session) with gnome-keyring-daemon on it, whose "login"
# keyring is created or unlocked with a known password and is the default
# keyring. Its files live in a temporary folder that is removed afterwards,
# so the user's own keyring and session bus are never touched.
#
# DISPLAY and WAYLAND_DISPLAY are unset for the bus and everything on it, so
# that an unlock prompt can never open a window (even when the tests run under
# xvfb-run) and a locked keyring always answers at once.
#
# When the tools are missing, TEST still runs, with SKELE_TEST_KEYRING_MISSING
# saying why, so that it reports a TAP skip with the reason. Inside the
# session SKELE_TEST_KEYRING_SESSION=1 tells TEST that the keyring it sees is
# a throwaway one it may fill and lock. TEST's exit status is passed through.

set -uo pipefail

if [[ "${1:-}" != --inside ]]; then
  if (($# == 0)); then
    echo "usage: $0 TEST [ARGS...]" >&2
    exit 2
  fi

  for tool in dbus-run-session dbus-send gnome-keyring-daemon secret-tool; do
    if ! command -v "$tool" > /dev/null; then
      export SKELE_TEST_KEYRING_MISSING="$tool is not installed (apt-get install gnome-keyring libsecret-tools dbus)"
      exec "$@"
    fi
  done

  # The test's debugging settings are not the daemons': with G_DEBUG's
  # fatal-warnings, gnome-keyring-daemon aborts on a warning of its own when a
  # key is replaced. They are handed to TEST alone.
  test_env=()
  for name in G_DEBUG MALLOC_CHECK_ MALLOC_PERTURB_; do
    if [[ -n "${!name+set}" ]]; then
      test_env+=("$name=${!name}")
      unset "$name"
    fi
  done

  # The bus starts the unlock prompt (gcr-prompter) with its own
  # environment, so the display must be gone before the bus starts.
  unset DISPLAY WAYLAND_DISPLAY

  folder=$(mktemp -d "${TMPDIR:-/tmp}/skele-keyring-XXXXXX") || exit 99
  chmod 0700 "$folder"
  status=0
  dbus-run-session -- bash "$0" --inside "$folder" ${#test_env[@]} "${test_env[@]}" "$@" ||
    status=$?
  rm -rf "$folder"
  exit "$status"
fi

# Inside the private session bus.
folder=$2
test_env=("${@:4:$3}")
shift $((3 + $3))

unset GNOME_KEYRING_CONTROL SSH_AUTH_SOCK
export XDG_DATA_HOME="$folder/data" XDG_RUNTIME_DIR="$folder/run"
mkdir -m 0700 -p "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR"

secrets=org.freedesktop.secrets
login=/org/freedesktop/secrets/collection/login

ask_bus () {
  dbus-send --session --print-reply=literal --reply-timeout=5000 \
    --dest=org.freedesktop.DBus /org/freedesktop/DBus "$@"
}

ask_keyring () {
  dbus-send --session --print-reply=literal --reply-timeout=5000 --dest=$secrets "$@"
}

# With --unlock the daemon reads the password from its input and creates the
# login keyring with it, or unlocks the one there is. It leaves by itself when
# the session bus goes away.
if ! printf 'skele-test' | gnome-keyring-daemon --unlock --components=secrets > /dev/null; then
  export SKELE_TEST_KEYRING_MISSING="gnome-keyring-daemon --unlock failed"
  exec env "${test_env[@]}" "$@"
fi

for _ in $(seq 100); do
  ask_bus org.freedesktop.DBus.GetNameOwner string:$secrets > /dev/null 2>&1 && break
  sleep 0.1
done
daemon=$(ask_bus org.freedesktop.DBus.GetConnectionUnixProcessID string:$secrets 2>/dev/null |
         awk '{ print $NF }')
if [[ ! "$daemon" =~ ^[0-9]+$ ]]; then
  export SKELE_TEST_KEYRING_MISSING="gnome-keyring-daemon did not appear on the session bus"
  exec env "${test_env[@]}" "$@"
fi

# secret-tool and libsecret store into the "default" keyring.
default=$(ask_keyring /org/freedesktop/secrets org.freedesktop.Secret.Service.ReadAlias \
            string:default 2>/dev/null | tr -d ' ')
if [[ "$default" != "$login" ]]; then
  ask_keyring /org/freedesktop/secrets org.freedesktop.Secret.Service.SetAlias \
    string:default objpath:$login > /dev/null
fi

export SKELE_TEST_KEYRING_SESSION=1
status=0
env "${test_env[@]}" "$@" || status=$?

kill "$daemon" 2> /dev/null
exit "$status"
