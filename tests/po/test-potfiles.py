#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""po/POTFILES.in lists exactly the files that have translatable strings.

Every file under src/ and data/ with strings marked for translation must be
listed, or its strings never reach the translators; every file listed must
exist and have such strings. The list is kept sorted, without repeats.

Usage: test-potfiles.py SOURCE_ROOT
"""
import os
import re
import sys

SEARCHED = ("src", "data")

# C: the gettext macros and functions, in code (not comments or strings).
C_MARKS = re.compile(
    r"(?<![\w.>])(?:_|N_|C_|NC_|Q_|ngettext|dngettext|dcngettext|gettext|dgettext|"
    r"pgettext|g_dgettext|g_dngettext|g_dpgettext|g_dpgettext2|g_dcgettext)\s*\("
)
# GtkBuilder: translatable properties, attributes (menus) and items.
UI_MARKS = re.compile(r"""translatable\s*=\s*["'](?:yes|true|1)["']""", re.I)
# GSettings schemas: summaries and descriptions are extracted.
GSCHEMA_MARKS = re.compile(r"<(?:summary|description)\b")
# Desktop entries: the keys xgettext extracts, and intltool's _Key= style.
DESKTOP_MARKS = re.compile(
    r"^(?:_[A-Za-z][\w-]*|Name|GenericName|Comment|Keywords|X-GNOME-FullName)=\s*\S",
    re.M,
)
# AppStream metainfo: name, summary, description text, captions, keywords,
# developer name; and intltool's _element style.
METAINFO_MARKS = re.compile(
    r"<(?:_[\w-]+|name|summary|p|li|caption|keyword|developer_name|developer)\b(?![^>]*translate=[\"']no[\"'])"
)
# Other XML with intltool's _element / _attribute= style, or ITS markers.
XML_IN_MARKS = re.compile(r"<_[\w-]+\b|\s_[\w-]+\s*=\s*[\"']|its:translate=[\"']yes[\"']")


def strip_c_comments(text):
    """The C source without its comments, and its string and character
    literals emptied: what is left is code."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            out.append(" ")
        elif c == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def has_translatable_strings(path):
    name = os.path.basename(path)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (UnicodeDecodeError, OSError):
        return False
    if name.endswith((".c", ".h")):
        return bool(C_MARKS.search(strip_c_comments(text)))
    if name.endswith(".ui"):
        return bool(UI_MARKS.search(text))
    if name.endswith(".gschema.xml") or name.endswith(".gschema.xml.in"):
        return bool(GSCHEMA_MARKS.search(text))
    if name.endswith(".desktop.in") or name.endswith(".desktop.in.in"):
        return bool(DESKTOP_MARKS.search(text))
    if name.endswith((".metainfo.xml.in", ".appdata.xml.in")) or name.endswith(
        (".metainfo.xml.in.in", ".appdata.xml.in.in")
    ):
        return bool(METAINFO_MARKS.search(text))
    if name.endswith(".xml.in"):
        return bool(XML_IN_MARKS.search(text))
    return False


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = os.path.abspath(sys.argv[1])
    potfiles = os.path.join(root, "po", "POTFILES.in")

    listed = []
    with open(potfiles, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                listed.append(line)

    found = set()
    for top in SEARCHED:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for filename in filenames:
                path = os.path.join(dirpath, filename)
                if has_translatable_strings(path):
                    found.add(os.path.relpath(path, root))

    problems = []
    for path in sorted(found - set(listed)):
        problems.append(f"{path} has translatable strings but is not in po/POTFILES.in")
    for path in listed:
        full = os.path.join(root, path)
        if not os.path.isfile(full):
            problems.append(f"po/POTFILES.in lists {path}, which does not exist")
        elif path not in found:
            problems.append(f"po/POTFILES.in lists {path}, which has no translatable strings")
    duplicates = sorted({p for p in listed if listed.count(p) > 1})
    for path in duplicates:
        problems.append(f"po/POTFILES.in lists {path} more than once")
    if listed != sorted(listed):
        problems.append("po/POTFILES.in is not sorted (keep it in `LC_ALL=C sort` order)")

    if problems:
        for problem in problems:
            print(problem, file=sys.stderr)
        print(f"{len(problems)} problem(s) with po/POTFILES.in", file=sys.stderr)
        return 1
    print(f"po/POTFILES.in lists all {len(listed)} files with translatable strings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
