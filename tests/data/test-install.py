#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Install Ferry into a fresh DESTDIR and check that every file lands where the
desktop looks for it, and that the files agree with each other (application
id, icon names, desktop file name, D-Bus service, translations).

Prints TAP. All paths given are absolute, as configured (prefix included);
the installed files are looked for under DESTDIR.
"""
import argparse
import configparser
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

from ferry_tap import Tap

XML_LANG = '{http://www.w3.org/XML/1998/namespace}lang'


def read_desktop(path):
    parser = configparser.ConfigParser(interpolation=None, strict=True, delimiters=('=',),
                                       comment_prefixes=('#',), empty_lines_in_values=False)
    parser.optionxform = str  # keys are case-sensitive
    with open(path, encoding='utf-8') as f:
        parser.read_file(f)
    return parser


def read_linguas(path):
    langs = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.split('#', 1)[0]
            langs += line.split()
    return langs


def po_translation(po_path, msgid):
    """The translation of msgid in a .po file, or None (missing, empty or fuzzy)."""
    if not os.path.exists(po_path):
        return None

    def unquote(s):
        s = s.strip()
        return bytes(s[1:-1], 'utf-8').decode('unicode_escape').encode('latin-1').decode('utf-8')

    entries, flags, cur, field = [], [], {}, None
    with open(po_path, encoding='utf-8') as f:
        for line in f:
            line = line.rstrip('\n')
            if not line.strip():
                if cur:
                    entries.append((flags, cur))
                flags, cur, field = [], {}, None
            elif line.startswith('#,'):
                flags += [x.strip() for x in line[2:].split(',')]
            elif line.startswith('#'):
                continue
            elif line.startswith('"') and field:
                cur[field] += unquote(line)
            else:
                key, _, rest = line.partition(' ')
                field = key
                cur[field] = unquote(rest)
    if cur:
        entries.append((flags, cur))
    for flags, entry in entries:
        if entry.get('msgid') == msgid and 'msgctxt' not in entry:
            text = entry.get('msgstr', '')
            return text if text and 'fuzzy' not in flags else None
    return None


def is_executable(path):
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and os.access(path, os.X_OK)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--meson', required=True)
    ap.add_argument('--builddir', required=True)
    ap.add_argument('--prefix', required=True)
    ap.add_argument('--bindir', required=True)
    ap.add_argument('--datadir', required=True)
    ap.add_argument('--localedir', required=True)
    ap.add_argument('--app-id', required=True)
    ap.add_argument('--gettext-package', required=True)
    ap.add_argument('--po-dir', required=True)
    ap.add_argument('--app', choices=['true', 'false'], required=True)
    ap.add_argument('--nautilus-extensiondir', default='',
                    help='where the Nautilus extension is installed; empty if it is not built. '
                         'Nautilus loads extensions from one folder only, so this one may be '
                         'outside the prefix')
    args = ap.parse_args()
    app = args.app == 'true'
    app_id = args.app_id

    tap = Tap()
    destdir = tempfile.mkdtemp(prefix='ferry-install-')
    # meson test ends a test that runs too long with SIGTERM: clean up then too.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    signal.signal(signal.SIGINT, lambda signum, frame: sys.exit(128 + signum))
    try:
        return run(tap, args, app, app_id, destdir)
    finally:
        shutil.rmtree(destdir, ignore_errors=True)


def run(tap, args, app, app_id, destdir):
    def d(path):
        """Where an absolute installed path lands under DESTDIR."""
        return os.path.join(destdir, os.path.relpath(path, '/'))

    env = dict(os.environ)
    env.pop('DESTDIR', None)
    result = subprocess.run([args.meson, 'install', '--no-rebuild', '--destdir', destdir,
                             '-C', args.builddir],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env, check=False)
    if not tap.ok(result.returncode == 0, 'meson install --destdir succeeds', result.stdout):
        return tap.done()

    # gnome.post_install must not run under DESTDIR (packages run the triggers).
    caches = [d(os.path.join(args.datadir, 'glib-2.0', 'schemas', 'gschemas.compiled')),
              d(os.path.join(args.datadir, 'icons', 'hicolor', 'icon-theme.cache')),
              d(os.path.join(args.datadir, 'applications', 'mimeinfo.cache'))]
    made = [c for c in caches if os.path.exists(c)]
    tap.ok(not made, 'post-install scripts made no caches under DESTDIR',
           'made by a post-install script: ' + ', '.join(made))
    skipped = [line for line in result.stdout.splitlines()
               if line.startswith('Skipping custom install script because DESTDIR is set')]
    ran = [line for line in result.stdout.splitlines() if line.startswith('Running custom install script')]
    triggers = ['glib-compile-schemas'] + (['update-icon-cache', 'update-desktop-database'] if app else [])
    missing = [t for t in triggers if not any(t in line for line in skipped)]
    tap.ok(not missing and not any(t in line for t in triggers for line in ran),
           'gnome.post_install (' + ', '.join(triggers) + ') is registered and skipped under DESTDIR',
           f'not skipped: {missing}\n' + '\n'.join(skipped + ran))

    # Nothing outside the prefix, so that an install works for --prefix=~/.local;
    # but the Nautilus extension goes where Nautilus loads it from.
    outside, exempt = [], []
    prefix_in_destdir = d(args.prefix)
    nautilus_in_destdir = d(args.nautilus_extensiondir) if args.nautilus_extensiondir else None
    for root, dirs, files in os.walk(destdir):
        for name in files:
            path = os.path.join(root, name)
            if os.path.commonpath([path, prefix_in_destdir]) == prefix_in_destdir:
                continue
            if nautilus_in_destdir and os.path.dirname(path) == nautilus_in_destdir:
                exempt.append('/' + os.path.relpath(path, destdir))
            else:
                outside.append('/' + os.path.relpath(path, destdir))
    tap.ok(not outside, f'every file is installed under the prefix {args.prefix}'
           + (', but the Nautilus extension' if exempt else ''),
           'installed outside the prefix:\n' + '\n'.join(outside))
    for path in exempt:
        tap.note(f'outside the prefix, where Nautilus loads extensions from: {path}')

    bindir = args.bindir
    tap.ok(is_executable(d(os.path.join(bindir, 'ferry-copy'))), f'{bindir}/ferry-copy is installed')

    desktop_name = app_id + '.desktop'
    desktop_path = d(os.path.join(args.datadir, 'applications', desktop_name))
    metainfo_path = d(os.path.join(args.datadir, 'metainfo', app_id + '.metainfo.xml'))
    service_path = d(os.path.join(args.datadir, 'dbus-1', 'services', app_id + '.service'))
    icon_path = d(os.path.join(args.datadir, 'icons', 'hicolor', 'scalable', 'apps', app_id + '.svg'))
    symbolic_path = d(os.path.join(args.datadir, 'icons', 'hicolor', 'symbolic', 'apps',
                                   app_id + '-symbolic.svg'))
    schema_path = d(os.path.join(args.datadir, 'glib-2.0', 'schemas', app_id + '.gschema.xml'))

    if tap.ok(os.path.isfile(schema_path), 'the GSettings schema is installed in share/glib-2.0/schemas'):
        ids = [s.get('id') for s in ET.parse(schema_path).getroot().iter('schema')]
        tap.ok(app_id in ids, 'the schema id is the application id', f'schema ids: {ids}')

    desktop_files = [desktop_path, metainfo_path, service_path, icon_path, symbolic_path]
    if not app:
        present = [p for p in desktop_files if os.path.exists(p)]
        tap.ok(not present, 'without the window, no desktop file, metainfo, D-Bus service or icon',
               '\n'.join(present))
        tap.ok(not os.path.exists(d(os.path.join(bindir, 'ferry'))), 'without the window, no bin/ferry')
    else:
        check_app(tap, args, app_id, d, desktop_name, desktop_path, metainfo_path, service_path,
                  icon_path, symbolic_path)

    check_translations(tap, args, app, d, desktop_path, metainfo_path)
    check_nautilus(tap, args, d)
    return tap.done()


def check_app(tap, args, app_id, d, desktop_name, desktop_path, metainfo_path, service_path,
              icon_path, symbolic_path):
    bindir = args.bindir
    ferry = os.path.join(bindir, 'ferry')
    tap.ok(is_executable(d(ferry)), f'{ferry} is installed')

    tap.ok(os.path.isfile(icon_path), 'the app icon is in share/icons/hicolor/scalable/apps')
    tap.ok(os.path.isfile(symbolic_path), 'the symbolic icon is in share/icons/hicolor/symbolic/apps')

    # The desktop file
    if tap.ok(os.path.isfile(desktop_path), f'{desktop_name} is in share/applications'):
        entry = read_desktop(desktop_path)['Desktop Entry']
        icon = entry.get('Icon', '')
        tap.ok(icon == app_id, 'desktop file: Icon= is the application id', f'Icon={icon}')
        icon_dir = os.path.dirname(os.path.dirname(os.path.dirname(icon_path)))
        tap.ok(os.path.isfile(os.path.join(icon_dir, 'scalable', 'apps', icon + '.svg'))
               and os.path.isfile(os.path.join(icon_dir, 'symbolic', 'apps', icon + '-symbolic.svg')),
               'desktop file: the icons named by Icon= are installed', f'Icon={icon}')
        exec_line = entry.get('Exec', '')
        program = exec_line.split()[0] if exec_line.split() else ''
        tap.ok(program == 'ferry' or program == ferry, 'desktop file: Exec= starts the installed ferry',
               f'Exec={exec_line}')
        tap.ok(entry.get('DBusActivatable') == 'true', 'desktop file: DBusActivatable=true')
        tap.ok(desktop_name[:-len('.desktop')] == app_id,
               'desktop file: its name is the application id (D-Bus activation needs that)')
        check_not_a_handler(tap, d(bindir), desktop_path)

    # The metainfo
    if tap.ok(os.path.isfile(metainfo_path), 'the metainfo is in share/metainfo'):
        root = ET.parse(metainfo_path).getroot()
        cid = root.findtext('id')
        tap.ok(cid == app_id, 'metainfo: <id> is the application id', f'<id>{cid}</id>')
        launchables = [l.text for l in root.findall('launchable') if l.get('type') == 'desktop-id']
        tap.ok(launchables == [desktop_name], 'metainfo: the launchable is the installed desktop file',
               f'launchables: {launchables}')
        binaries = [b.text for b in root.findall('provides/binary')]
        missing = [b for b in binaries if not is_executable(d(os.path.join(bindir, b)))]
        tap.ok(binaries and not missing, 'metainfo: every <binary> it provides is installed',
               f'provides {binaries}, missing {missing}')
        domain = root.findtext("translation[@type='gettext']")
        tap.ok(domain == args.gettext_package, 'metainfo: the gettext domain is the one installed',
               f'<translation>{domain}</translation>')

    # The D-Bus service
    if tap.ok(os.path.isfile(service_path), 'the D-Bus service is in share/dbus-1/services'):
        service = read_desktop(service_path)['D-BUS Service']
        tap.ok(service.get('Name') == app_id, 'D-Bus service: Name= is the application id',
               f'Name={service.get("Name")}')
        exec_line = service.get('Exec', '')
        expected = f'{ferry} --gapplication-service'
        tap.ok(exec_line == expected, 'D-Bus service: Exec= starts the installed ferry as a service',
               f'Exec={exec_line}\nexpected Exec={expected}')
        program = exec_line.split()[0] if exec_line.split() else ''
        tap.ok(os.path.isabs(program) and is_executable(d(program)),
               'D-Bus service: the program of Exec= is installed', f'Exec={exec_line}')


# What a file manager opens with the default application, and where a
# claim on the parent of every type would make Ferry the default for files
# nothing else opens.
NOT_FERRYS_TYPES = ('inode/directory', 'application/octet-stream')


def check_not_a_handler(tap, installed_bindir, desktop_path):
    """Ferry is not a viewer: the installed desktop file, registered as a
    package registers it (update-desktop-database), makes it neither the
    default nor a registered application for folders or any file, so
    `gio open FOLDER` opens the file manager. GIO lists only applications
    whose Exec= program is in PATH: the installed one is put there."""
    tools = [shutil.which('update-desktop-database'), shutil.which('gio')]
    if None in tools:
        tap.skip('desktop file: Ferry opens no folder and no file by default',
                 'update-desktop-database or gio is not installed')
        return
    with tempfile.TemporaryDirectory(prefix='ferry-mime-') as xdg:
        applications = os.path.join(xdg, 'data', 'applications')
        os.makedirs(applications)
        shutil.copy(desktop_path, applications)
        write_probe(desktop_path, os.path.join(applications, PROBE + '.desktop'))
        subprocess.run([tools[0], applications], check=True)
        env = dict(os.environ, PATH=installed_bindir + os.pathsep + os.environ.get('PATH', ''),
                   XDG_DATA_DIRS=os.path.join(xdg, 'data'), XDG_DATA_HOME=os.path.join(xdg, 'home'),
                   XDG_CONFIG_HOME=os.path.join(xdg, 'config'),
                   XDG_CONFIG_DIRS=os.path.join(xdg, 'config'))
        desktop_name = os.path.basename(desktop_path)
        listed = gio_mime(tools[1], env, PROBE_TYPE)
        tap.ok(f'{PROBE}.desktop' in listed,
               'GIO lists an application like Ferry for a type it claims (the check below can fail)',
               f'gio mime {PROBE_TYPE}:\n{listed}')
        for mime_type in NOT_FERRYS_TYPES:
            listed = gio_mime(tools[1], env, mime_type)
            tap.ok(desktop_name not in listed,
                   f'desktop file: Ferry does not open {mime_type}, by default or offered',
                   f'gio mime {mime_type}:\n{listed}')


# Ferry's desktop file under another name, claiming a type of its own.
PROBE = 'ferry-mime-probe'
PROBE_TYPE = 'application/x-ferry-mime-probe'


def write_probe(desktop_path, probe_path):
    with open(desktop_path, encoding='utf-8') as f:
        lines = [line for line in f if not line.startswith('MimeType=')]
    lines.insert(lines.index('[Desktop Entry]\n') + 1, f'MimeType={PROBE_TYPE};\n')
    with open(probe_path, 'w', encoding='utf-8') as f:
        f.writelines(lines)


def gio_mime(gio, env, mime_type):
    """What `gio mime` says of the default and registered applications."""
    result = subprocess.run([gio, 'mime', mime_type], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, check=False)
    return result.stdout


def check_translations(tap, args, app, d, desktop_path, metainfo_path):
    linguas = read_linguas(os.path.join(args.po_dir, 'LINGUAS'))
    if not linguas:
        tap.skip('translations are installed', 'po/LINGUAS lists no language')
        return
    for lang in linguas:
        mo = d(os.path.join(args.localedir, lang, 'LC_MESSAGES', args.gettext_package + '.mo'))
        good = False
        if os.path.isfile(mo):
            with open(mo, 'rb') as f:
                good = f.read(4) in (b'\xde\x12\x04\x95', b'\x95\x04\x12\xde')
        tap.ok(good, f'{lang}: {os.path.relpath(mo, d(args.prefix))} is installed')

        if not app:
            continue
        po = os.path.join(args.po_dir, lang + '.po')
        comment = po_translation(po, 'Copy files to drives, safely and fast')
        if comment is None:
            tap.skip(f'{lang}: the desktop file and metainfo are translated',
                     f'{lang}.po does not translate the summary yet')
            continue
        if os.path.isfile(desktop_path):
            entry = read_desktop(desktop_path)['Desktop Entry']
            got = entry.get(f'Comment[{lang}]')
            tap.ok(got == comment, f'{lang}: the desktop file has the translated Comment',
                   f'Comment[{lang}]={got}\nexpected {comment}')
        if os.path.isfile(metainfo_path):
            root = ET.parse(metainfo_path).getroot()
            got = [s.text for s in root.findall('summary') if s.get(XML_LANG) == lang]
            tap.ok(got == [comment], f'{lang}: the metainfo has the translated summary',
                   f'summary in {lang}: {got}\nexpected {comment}')


def check_nautilus(tap, args, d):
    if not args.nautilus_extensiondir:
        tap.skip('the Nautilus extension is installed', 'the Nautilus extension is not built')
        return
    path = d(args.nautilus_extensiondir)
    found = sorted(f for f in os.listdir(path) if f.endswith('.so')) if os.path.isdir(path) else []
    tap.ok(bool(found), f'the Nautilus extension is installed in {args.nautilus_extensiondir}',
           f'no *.so in {args.nautilus_extensiondir}')
    for name in found:
        tap.note(f'Nautilus extension: {name}')

if __name__ == '__main__':
    sys.exit(main())
