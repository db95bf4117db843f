#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks the Flatpak manifest.

Usage: check-flatpak-manifest.py [--flatpak-builder PATH] MANIFEST.json

The manifest must be valid JSON, name the application, runtime and command,
and give a sha256 for every archive or file source. With --flatpak-builder,
`flatpak-builder --show-manifest` must also succeed and print nothing on
stderr: it only warns there about unknown keys and values of the wrong type.
Nothing is downloaded. Exits 1 and names each problem otherwise.
"""

import json
import os
import subprocess
import sys

REQUIRED_KEYS = ('id', 'runtime', 'runtime-version', 'sdk', 'command', 'modules')


def check_sources(module, problems):
    if not isinstance(module, dict):
        problems.append('a module is not a JSON object')
        return
    name = module.get('name', '?')
    for source in module.get('sources', []):
        if isinstance(source, dict) and source.get('type') in ('archive', 'file'):
            if 'url' in source and 'sha256' not in source:
                problems.append('module %s: the source %s has no sha256' % (name, source['url']))
    for submodule in module.get('modules', []):
        check_sources(submodule, problems)


def main(argv):
    flatpak_builder = None
    if len(argv) == 3 and argv[0] == '--flatpak-builder':
        flatpak_builder, argv = argv[1], argv[2:]
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    path = argv[0]
    problems = []

    try:
        with open(path, encoding='utf-8') as manifest_file:
            manifest = json.load(manifest_file)
    except (OSError, ValueError) as error:
        print('%s: %s' % (path, error), file=sys.stderr)
        return 1

    if not isinstance(manifest, dict):
        print('%s: the manifest is not a JSON object' % path, file=sys.stderr)
        return 1
    for key in REQUIRED_KEYS:
        if key not in manifest:
            problems.append('%s: no "%s"' % (path, key))
    for module in manifest.get('modules', []):
        check_sources(module, problems)

    if flatpak_builder is not None:
        # Relative "dir" sources are resolved against the manifest's folder.
        result = subprocess.run([flatpak_builder, '--show-manifest', os.path.abspath(path)],
                                cwd=os.path.dirname(os.path.abspath(path)),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True, check=False)
        if result.returncode != 0:
            problems.append('flatpak-builder --show-manifest exited with %d' % result.returncode)
        if result.stderr.strip():
            problems.append('flatpak-builder --show-manifest complained:\n' + result.stderr.strip())

    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print('%s: valid' % path)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
