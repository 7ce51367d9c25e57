#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The screenshots the metainfo shows are in the source tree, as PNG images
of a sensible size, with captions, the first of them the default.

    test-screenshots.py METAINFO SOURCE_ROOT

Each <image> is a raw.githubusercontent.com address of a file of the main
branch; it must name a file in data/screenshots/. Prints TAP.
"""
import os
import struct
import sys
import xml.etree.ElementTree as ET

from ferry_tap import Tap

URL_PREFIX = 'https://raw.githubusercontent.com/ferrycopy/ferry/main/'
MIN_WIDTH = 600
MIN_HEIGHT = 300
EXPECTED = ['data/screenshots/empty.png', 'data/screenshots/copying.png', 'data/screenshots/eject.png']
XML_LANG = '{http://www.w3.org/XML/1998/namespace}lang'


def png_size(path):
    with open(path, 'rb') as f:
        head = f.read(33)
    if len(head) < 33 or head[:8] != b'\x89PNG\r\n\x1a\n' or head[12:16] != b'IHDR':
        return None
    return struct.unpack('>II', head[16:24])


def main():
    metainfo, source_root = sys.argv[1], sys.argv[2]
    tap = Tap()
    ok = tap.ok

    root = ET.parse(metainfo).getroot()
    shots = root.findall('screenshots/screenshot')
    paths = []
    for shot in shots:
        images = [i.text.strip() for i in shot.findall('image') if i.text]
        paths += [i[len(URL_PREFIX):] if i.startswith(URL_PREFIX) else i for i in images]
    ok(paths == EXPECTED, 'the metainfo shows the three screenshots of data/screenshots/',
       f'images: {paths}\nexpected: {EXPECTED}')
    ok(bool(shots) and shots[0].get('type') == 'default'
       and all(s.get('type') != 'default' for s in shots[1:]),
       'the first screenshot, and only it, is the default')

    for i, shot in enumerate(shots):
        captions = [c.text for c in shot.findall('caption') if c.get(XML_LANG) is None]
        ok(len(captions) == 1 and captions[0] and captions[0].strip(), f'screenshot {i + 1} has a caption')
        for image in shot.findall('image'):
            url = (image.text or '').strip()
            if not ok(url.startswith(URL_PREFIX), f'screenshot {i + 1}: the image is in the repository',
                      f'{url} does not start with {URL_PREFIX}'):
                continue
            rel = url[len(URL_PREFIX):]
            path = os.path.join(source_root, rel)
            if not ok(os.path.isfile(path), f'{rel} exists'):
                continue
            size = png_size(path)
            if not ok(size is not None, f'{rel} is a PNG image'):
                continue
            w, h = size
            ok(w >= MIN_WIDTH and h >= MIN_HEIGHT, f'{rel} is at least {MIN_WIDTH}×{MIN_HEIGHT} ({w}×{h})')
            for attr, real in (('width', w), ('height', h)):
                if image.get(attr) is not None:
                    ok(image.get(attr) == str(real), f'{rel}: the metainfo gives its real {attr}',
                       f'{attr}="{image.get(attr)}", the image has {real}')

    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
