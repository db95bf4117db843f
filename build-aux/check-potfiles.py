#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks po/POTFILES.in against the source tree.

Usage: check-potfiles.py [--list] SOURCE_ROOT [PACKAGE]

- every file listed exists, once, and has at least one translatable string;
- xgettext extracts the template from the list without an error, with the
  options of meson's 'glib' preset (the ones the skele-code-pot target uses);
- the template is sound: msgfmt --check accepts a catalogue made from it;
- no source file with translatable strings is missing from the list: every
  .c, .h and .ui file under src/ and every desktop, metainfo and GSettings
  file under data/ (example workflows aside) from which xgettext extracts a
  message must be listed.

Exits 1 and names each problem otherwise. With --list, checks nothing and
prints the files that have translatable strings, sorted: what POTFILES.in
should list.
"""

import os
import shutil
import subprocess
import sys
import tempfile

# meson's i18n 'glib' preset, plus the '-k_' its gettext script always adds.
XGETTEXT_ARGS = [
    '-k_',
    '--from-code=UTF-8',
    '--add-comments',
    '--keyword=_',
    '--keyword=N_',
    '--keyword=C_:1c,2',
    '--keyword=NC_:1c,2',
    '--keyword=g_dcgettext:2',
    '--keyword=g_dngettext:2,3',
    '--keyword=g_dpgettext2:2c,3',
    '--flag=N_:1:pass-c-format',
    '--flag=C_:2:pass-c-format',
    '--flag=NC_:2:pass-c-format',
    '--flag=g_dngettext:2:pass-c-format',
    '--flag=g_strdup_printf:1:c-format',
    '--flag=g_string_printf:2:c-format',
    '--flag=g_string_append_printf:2:c-format',
    '--flag=g_error_new:3:c-format',
    '--flag=g_set_error:4:c-format',
    '--flag=g_markup_printf_escaped:1:c-format',
    '--flag=g_log:3:c-format',
    '--flag=g_print:1:c-format',
    '--flag=g_printerr:1:c-format',
    '--flag=g_printf:1:c-format',
    '--flag=g_fprintf:2:c-format',
    '--flag=g_sprintf:2:c-format',
    '--flag=g_snprintf:3:c-format',
]

SOURCE_SUFFIXES = ('.c', '.h', '.ui')
DATA_SUFFIXES = ('.desktop.in.in', '.metainfo.xml.in.in', '.gschema.xml')


def read_potfiles(path):
    with open(path, encoding='utf-8') as potfiles:
        return [line.strip() for line in potfiles
                if line.strip() and not line.lstrip().startswith('#')]


def candidates(root):
    """Yields the files that could hold translatable strings, relative to root."""
    for top, suffixes in (('src', SOURCE_SUFFIXES), ('data', DATA_SUFFIXES)):
        for folder, subfolders, names in os.walk(os.path.join(root, top)):
            subfolders[:] = sorted(d for d in subfolders
                                   if d != 'examples' and not d.startswith('.'))
            for name in sorted(names):
                if name.endswith(suffixes):
                    yield os.path.relpath(os.path.join(folder, name), root)


def xgettext(xgettext_path, root, files, output, package):
    """Runs xgettext like meson's pot target; returns (exit status, stderr)."""
    with tempfile.NamedTemporaryFile('w', suffix='.txt', delete=False) as listfile:
        listfile.write(''.join(f + '\n' for f in files))
    try:
        result = subprocess.run([xgettext_path, '--package-name=' + package,
                                 '-f', listfile.name, '-D', root, '-o', output]
                                + XGETTEXT_ARGS,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, check=False)
    finally:
        os.unlink(listfile.name)
    return result.returncode, (result.stdout + result.stderr).strip()


def list_translatable(xgettext_path, root, package):
    found = []
    with tempfile.TemporaryDirectory() as scratch:
        for index, name in enumerate(candidates(root)):
            single = os.path.join(scratch, 'single-%d.pot' % index)
            status, _ = xgettext(xgettext_path, root, [name], single, package)
            if status == 0 and os.path.exists(single):
                found.append(name)
    print('\n'.join(sorted(found)))
    return 0


def main(argv):
    list_only = '--list' in argv
    argv = [argument for argument in argv if argument != '--list']
    if len(argv) not in (1, 2):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    root = os.path.abspath(argv[0])
    package = argv[1] if len(argv) == 2 else 'skele-code'
    potfiles_path = os.path.join(root, 'po', 'POTFILES.in')
    problems = []

    xgettext_path = shutil.which('xgettext')
    if xgettext_path is None:
        print('xgettext is not installed', file=sys.stderr)
        return 77
    if list_only:
        return list_translatable(xgettext_path, root, package)

    try:
        listed = read_potfiles(potfiles_path)
    except OSError as error:
        print('%s: %s' % (potfiles_path, error), file=sys.stderr)
        return 1

    seen = set()
    for name in listed:
        if name in seen:
            problems.append('POTFILES.in lists %s twice' % name)
        seen.add(name)
        if not os.path.isfile(os.path.join(root, name)):
            problems.append('POTFILES.in lists %s, which does not exist' % name)

    with tempfile.TemporaryDirectory() as scratch:
        pot = os.path.join(scratch, package + '.pot')
        status, messages = xgettext(xgettext_path, root, listed, pot, package)
        if status != 0:
            problems.append('xgettext failed on POTFILES.in (exit status %d):\n%s'
                            % (status, messages))
        elif messages:
            print(messages)

        if status == 0:
            msginit = shutil.which('msginit')
            msgfmt = shutil.which('msgfmt')
            if msginit is not None and msgfmt is not None:
                po = os.path.join(scratch, 'en_US.po')
                result = subprocess.run([msginit, '--no-translator', '--locale=en_US.UTF-8',
                                         '-i', pot, '-o', po],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, check=False)
                if result.returncode == 0:
                    result = subprocess.run([msgfmt, '--check', '-o', os.devnull, po],
                                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                            text=True, check=False)
                if result.returncode != 0:
                    problems.append('the template does not pass msgfmt --check:\n'
                                    + result.stdout.strip())

        for index, name in enumerate(sorted(set(candidates(root)) | seen)):
            if not os.path.isfile(os.path.join(root, name)):
                continue
            single = os.path.join(scratch, 'single-%d.pot' % index)
            status, messages = xgettext(xgettext_path, root, [name], single, package)
            found = status == 0 and os.path.exists(single)
            if name in seen and not found:
                problems.append('POTFILES.in lists %s, which has no translatable string' % name)
            elif name not in seen and found:
                problems.append('%s has translatable strings but is not in POTFILES.in' % name)

    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print('POTFILES.in: %d files, all present and complete' % len(listed))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
