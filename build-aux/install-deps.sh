#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Installs the packages needed to build and test Skele-Code when they are missing.
# On Debian and Ubuntu it installs them with apt-get (through sudo when not root);
# elsewhere it names what is needed. Prints nothing when nothing is missing.

set -euo pipefail

cd "$(dirname "$0")/.."

# gcc brings the runtimes of its sanitizers (libasan, libubsan) for
# build-aux/run-sanitizers.sh. clang and libclang-rt-dev, the runtime of clang's
# sanitizers and of libFuzzer (libclang_rt.fuzzer; on Debian 12 it is in
# libclang-rt-14-dev, which clang only recommends), build the fuzz targets.
# gnome-keyring, libsecret-tools and dbus give the keyring tests a Secret
# Service of their own.
# chromium renders the HTML report headless in tests/test-export-html.c.
debian_packages=(
  libgtk-4-dev
  libgtk-4-bin
  libadwaita-1-dev
  libjson-glib-dev
  libsoup-3.0-dev
  libsecret-1-dev
  libgraphviz-dev
  libgtksourceview-5-dev
  librsvg2-common
  meson
  ninja-build
  pkg-config
  gcc
  libc6-dev
  clang
  libclang-rt-dev
  gettext
  desktop-file-utils
  appstream
  yelp-tools
  flatpak-builder
  xvfb
  xauth
  xdotool
  imagemagick
  python3
  python3-matplotlib
  # For test-export-notebook: nbconvert runs exported notebooks on a Python kernel.
  jupyter-nbconvert
  python3-ipykernel
  snakemake
  # For test-export-slurm: tests/slurm-local.sh runs a Slurm cluster on this machine.
  slurm-wlm
  munge
  slurm-client
  bubblewrap
  gnome-keyring
  libsecret-tools
  dbus
  git
  ca-certificates
  chromium
)

say() {
  printf 'install-deps: %s\n' "$*" >&2
}

is_debian_like() {
  local id="" id_like=""
  [[ -r /etc/os-release ]] || return 1
  # shellcheck disable=SC1091
  id="$(. /etc/os-release && printf '%s' "${ID:-}")"
  # shellcheck disable=SC1091
  id_like="$(. /etc/os-release && printf '%s' "${ID_LIKE:-}")"
  case " ${id} ${id_like} " in
    *" debian "* | *" ubuntu "*) ;;
    *) return 1 ;;
  esac
  command -v dpkg-query > /dev/null && command -v apt-get > /dev/null
}

is_installed() {
  dpkg-query -W -f='${Status}\n' "$1" 2> /dev/null | grep -qx 'install ok installed'
}

has_candidate() {
  local candidate
  candidate="$(apt-cache policy "$1" 2> /dev/null | awk '/Candidate:/ { print $2; exit }')"
  [[ -n "${candidate}" && "${candidate}" != "(none)" ]]
}

install_debian() {
  local missing=() available=() unavailable=() pkg
  local -a as_root=()

  for pkg in "${debian_packages[@]}"; do
    is_installed "${pkg}" || missing+=("${pkg}")
  done
  [[ ${#missing[@]} -eq 0 ]] && return 0

  if [[ "$(id -u)" -ne 0 ]]; then
    if ! command -v sudo > /dev/null; then
      say "these packages are missing and sudo is not available:"
      say "  ${missing[*]}"
      say "install them as root with:"
      say "  apt-get update && apt-get install --no-install-recommends ${missing[*]}"
      return 1
    fi
    if [[ -t 0 ]]; then
      as_root=(sudo)
    else
      # No terminal to ask for a password on: fail instead of waiting.
      as_root=(sudo -n)
    fi
  fi

  say "installing missing packages: ${missing[*]}"
  if ! "${as_root[@]}" apt-get update -q; then
    say "apt-get update failed"
    return 1
  fi

  for pkg in "${missing[@]}"; do
    if has_candidate "${pkg}"; then
      available+=("${pkg}")
    else
      unavailable+=("${pkg}")
    fi
  done
  if [[ ${#unavailable[@]} -gt 0 ]]; then
    say "not available from this system's package sources, skipped: ${unavailable[*]}"
  fi
  [[ ${#available[@]} -eq 0 ]] && return 0

  if ! "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q --no-install-recommends "${available[@]}"; then
    say "apt-get install failed"
    return 1
  fi
}

version_at_least() {
  # version_at_least HAVE WANT: true when HAVE >= WANT.
  [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" == "$2" ]]
}

check_other() {
  local problems=() module want have
  local modules=(
    'glib-2.0 2.74'
    'gtk4 4.8'
    'libadwaita-1 1.2'
    'json-glib-1.0 1.6'
    'libsoup-3.0 3.2'
    'libsecret-1 0.20'
    'gtksourceview-5 5.6'
    'libgvc 2.42'
  )

  if command -v pkg-config > /dev/null; then
    for module in "${modules[@]}"; do
      want="${module#* }"
      module="${module%% *}"
      pkg-config --atleast-version="${want}" "${module}" 2> /dev/null \
        || problems+=("${module} >= ${want}")
    done
  else
    problems+=("pkg-config")
  fi

  if command -v meson > /dev/null; then
    have="$(meson --version 2> /dev/null || true)"
    version_at_least "${have:-0}" 0.63 || problems+=("meson >= 0.63 (found ${have:-none})")
  else
    problems+=("meson >= 0.63")
  fi
  command -v ninja > /dev/null || problems+=("ninja")
  command -v python3 > /dev/null || problems+=("python3")
  command -v clang > /dev/null || problems+=("clang")

  [[ ${#problems[@]} -eq 0 ]] && return 0

  say "this system is not Debian or Ubuntu, so nothing is installed automatically."
  say "Skele-Code needs: GLib >= 2.74, GTK >= 4.8, libadwaita >= 1.2, json-glib >= 1.6,"
  say "libsoup >= 3.2, GtkSourceView >= 5.6, Graphviz (libgvc/libcgraph), meson >= 0.63,"
  say "ninja, pkg-config, a C compiler, gettext and Python 3; the tests also use"
  say "xvfb-run, xdotool, ImageMagick, yelp-tools, desktop-file-utils, appstream,"
  say "flatpak-builder, gnome-keyring, secret-tool and dbus-run-session, and the"
  say "sanitizer and fuzz runs need GCC's and clang's sanitizer runtimes and libFuzzer."
  say "not found or too old: ${problems[*]}"
  say "continuing; the build will tell whether anything essential is missing."
  return 0
}

if is_debian_like; then
  install_debian
else
  check_other
fi
