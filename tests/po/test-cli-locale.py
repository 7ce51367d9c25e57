#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""ferry-copy in Spanish: errors, usage and --help from the es catalog.

LANGUAGE=es over the C.UTF-8 locale (glibc ignores LANGUAGE only under the
plain C locale, so no Spanish locale is needed), with FERRY_LOCALEDIR
pointing at the catalogs built in the build tree. The expected texts come
from that catalog, and a few are checked word for word, so that neither an
untranslated nor an English catalog passes.

Usage: test-cli-locale.py FERRY_COPY BUILD_PO_DIR
"""
import gettext
import os
import subprocess
import sys
import tempfile


def run(ferry_copy, args, language, localedir, stdin=None):
    env = dict(os.environ)
    env["LC_ALL"] = "C.UTF-8"
    env.pop("LANG", None)
    env.pop("LC_MESSAGES", None)
    if language is None:
        env.pop("LANGUAGE", None)
    else:
        env["LANGUAGE"] = language
    env["FERRY_LOCALEDIR"] = localedir
    return subprocess.run(
        [ferry_copy] + args, env=env, capture_output=True, text=True, timeout=60,
        input=stdin if stdin is not None else "",
    )


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    ferry_copy, localedir = sys.argv[1], sys.argv[2]
    mo = os.path.join(localedir, "es", "LC_MESSAGES", "ferry.mo")
    if not os.path.isfile(mo):
        sys.exit(f"{mo} is missing: build the po/ targets first")
    with open(mo, "rb") as f:
        es = gettext.GNUTranslations(f)

    def tr(msgid):
        text = es.gettext(msgid)
        if text == msgid:
            sys.exit(f"“{msgid}” has no Spanish translation in {mo}")
        return text

    failures = []

    def check(what, ok, detail):
        print(("ok" if ok else "FAIL") + " - " + what)
        if not ok:
            failures.append(what)
            print("  " + detail.replace("\n", "\n  "))

    # The catalog is really Spanish.
    check("catalog is Spanish", tr("“%s” does not exist") == "«%s» no existe",
          tr("“%s” does not exist"))

    scratch = os.environ.get("FERRY_TEST_TMPDIR")
    if scratch:
        os.makedirs(scratch, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ferry-cli-locale-", dir=scratch) as tmp:
        missing = os.path.join(tmp, "no-such-file")

        # An engine error: the source does not exist.
        result = run(ferry_copy, [missing, tmp], "es", localedir)
        want = "ferry-copy: " + tr("“%s” does not exist") % missing
        check("missing source, in Spanish", result.returncode == 1 and want in result.stderr,
              f"exit {result.returncode}, wanted {want!r} in stderr:\n{result.stderr}")

        # The same without LANGUAGE: English, so the language did it.
        result = run(ferry_copy, [missing, tmp], None, localedir)
        want = f"ferry-copy: “{missing}” does not exist"
        check("missing source, in English without LANGUAGE",
              result.returncode == 1 and want in result.stderr,
              f"exit {result.returncode}, wanted {want!r} in stderr:\n{result.stderr}")

        # A usage error of the CLI itself.
        result = run(ferry_copy, [tmp], "es", localedir)
        want = "ferry-copy: " + tr("missing DESTINATION")
        check("usage error, in Spanish",
              result.returncode == 2 and want in result.stderr and "falta DESTINO" in want,
              f"exit {result.returncode}, wanted {want!r} in stderr:\n{result.stderr}")

        # The conflict question, answered with the letter its Spanish
        # shows for "keep both" (the English one is another).
        src = os.path.join(tmp, "src")
        dst = os.path.join(tmp, "dst")
        os.makedirs(src)
        os.makedirs(dst)
        for folder, text in ((src, "nuevo\n"), (dst, "viejo\n")):
            with open(os.path.join(folder, "notas.txt"), "w") as f:
                f.write(text)
        keep_both = es.pgettext("conflict answer", "k")
        question = tr("[R]eplace, [S]kip, [K]eep both, [C]ancel? (add ! to apply to all)")
        result = run(ferry_copy, ["--conflict=ask", os.path.join(src, "notas.txt"), dst], "es",
                     localedir, stdin=keep_both + "\n")
        check("conflict question in Spanish, answered in Spanish",
              keep_both == "a" and result.returncode == 0 and question in result.stderr
              and os.path.exists(os.path.join(dst, "notas (2).txt")),
              f"exit {result.returncode}, letter {keep_both!r}, stderr:\n{result.stderr}\n"
              f"destination: {sorted(os.listdir(dst))}")

    # --help: option descriptions (N_() with the context's domain), the
    # parameter names and the summary.
    result = run(ferry_copy, ["--help"], "es", localedir)
    for msgid in ("Show the version", "SOURCE… DESTINATION", "STYLE",
                  "Read every copy back from the disk and compare it"):
        check(f"--help shows “{tr(msgid)}”",
              result.returncode == 0 and tr(msgid) in result.stdout, result.stdout)
    summary = tr("Copy files and folders, keeping everything, and return only when the "
                 "copies are safely on the disk.")
    check("--help shows the summary in Spanish", summary in result.stdout, result.stdout)

    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
