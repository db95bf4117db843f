#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks the application icons.

Usage: check-icons.py --app ICON.svg... --symbolic ICON-symbolic.svg...

Every icon must be well-formed XML whose root is an SVG element with a
viewBox: 128x128 for the full-colour icon, 16x16 for the symbolic one. A
symbolic icon may paint only with #2e3436 (or none), the colour GTK replaces
with the theme's foreground colour. Exits 1 and names each problem otherwise.
"""

import re
import sys
import xml.dom.minidom
from xml.parsers.expat import ExpatError

SVG_NS = 'http://www.w3.org/2000/svg'
SYMBOLIC_COLOUR = '#2e3436'
PAINT_ATTRIBUTES = ('fill', 'stroke', 'stop-color', 'color')


def paints(element):
    """Yields every colour an element asks for, in attributes and in style."""
    for name in PAINT_ATTRIBUTES:
        value = element.getAttribute(name)
        if value:
            yield name, value
    for declaration in element.getAttribute('style').split(';'):
        name, _, value = declaration.partition(':')
        if name.strip() in PAINT_ATTRIBUTES and value.strip():
            yield name.strip(), value.strip()


def check(path, size, symbolic):
    problems = []
    try:
        document = xml.dom.minidom.parse(path)
    except (OSError, ExpatError) as error:
        return ['%s: %s' % (path, error)]

    root = document.documentElement
    if root.localName != 'svg' or root.namespaceURI != SVG_NS:
        problems.append('%s: the root element is not <svg> in the SVG namespace' % path)
    view_box = root.getAttribute('viewBox').replace(',', ' ').split()
    if view_box != ['0', '0', str(size), str(size)]:
        problems.append('%s: the viewBox is "%s", expected "0 0 %d %d"'
                        % (path, root.getAttribute('viewBox'), size, size))

    if symbolic:
        for element in root.getElementsByTagName('*'):
            for name, value in paints(element):
                if value.lower() not in (SYMBOLIC_COLOUR, 'none'):
                    problems.append('%s: <%s> has %s="%s"; a symbolic icon uses only %s'
                                    % (path, element.tagName, name, value, SYMBOLIC_COLOUR))
        with open(path, encoding='utf-8') as icon:
            text = icon.read()
        if not re.search(SYMBOLIC_COLOUR, text, re.I):
            problems.append('%s: nothing is painted with %s' % (path, SYMBOLIC_COLOUR))
    return problems


def main(argv):
    size, symbolic, checked, problems = None, False, 0, []
    for argument in argv:
        if argument == '--app':
            size, symbolic = 128, False
        elif argument == '--symbolic':
            size, symbolic = 16, True
        elif size is None:
            print(__doc__.strip().splitlines()[2], file=sys.stderr)
            return 2
        else:
            problems += check(argument, size, symbolic)
            checked += 1

    for problem in problems:
        print(problem, file=sys.stderr)
    if checked == 0:
        print('no icon given', file=sys.stderr)
        return 2
    print('%d icon(s) checked, %d problem(s)' % (checked, len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
