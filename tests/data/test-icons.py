#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The application icons are what GNOME expects.

    test-icons.py APP_ICON SYMBOLIC_ICON

The full-color icon has a 128×128 canvas. The symbolic icon has a 16×16
canvas and is drawn in one color, #2e3436, with fills only (GTK recolors it;
strokes would stay thin lines). Prints TAP.
"""
import re
import sys
import xml.etree.ElementTree as ET

from ferry_tap import Tap

SVG = '{http://www.w3.org/2000/svg}'


def canvas(root):
    return (root.get('width'), root.get('height'), root.get('viewBox'))


def style_props(el):
    props = {k: v for k, v in el.attrib.items()}
    for decl in (el.get('style') or '').split(';'):
        if ':' in decl:
            k, v = decl.split(':', 1)
            props[k.strip()] = v.strip()
    return props


def main():
    app_icon, symbolic_icon = sys.argv[1], sys.argv[2]
    tap = Tap()
    ok = tap.ok

    root = ET.parse(app_icon).getroot()
    ok(root.tag == SVG + 'svg' and canvas(root) == ('128', '128', '0 0 128 128'),
       'the app icon is an SVG with a 128×128 canvas', f'width, height, viewBox: {canvas(root)}')

    root = ET.parse(symbolic_icon).getroot()
    ok(root.tag == SVG + 'svg' and canvas(root) == ('16', '16', '0 0 16 16'),
       'the symbolic icon is an SVG with a 16×16 canvas', f'width, height, viewBox: {canvas(root)}')
    colors, strokes, shapes = set(), [], 0
    for el in root.iter():
        props = style_props(el)
        for key in ('fill', 'stroke', 'stop-color', 'color'):
            value = props.get(key)
            if value and value not in ('none', 'inherit', 'currentColor'):
                colors.add(value.lower())
        if props.get('stroke') not in (None, 'none'):
            strokes.append(el.tag.replace(SVG, ''))
        if el.tag.replace(SVG, '') in ('path', 'rect', 'circle', 'ellipse', 'polygon'):
            shapes += 1
    ok(colors == {'#2e3436'}, 'the symbolic icon uses one color, #2e3436', f'colors: {sorted(colors)}')
    ok(not strokes, 'the symbolic icon has no strokes', f'stroked: {strokes}')
    ok(shapes > 0, 'the symbolic icon draws something')
    ok(not re.search(r'<(image|text)\b', open(symbolic_icon, encoding='utf-8').read()),
       'the symbolic icon has no raster images or text')

    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
