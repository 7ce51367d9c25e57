# SPDX-License-Identifier: GPL-3.0-or-later
"""TAP output for the data tests: one line per check, diagnostics only
when a check fails, the plan at the end."""


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0
        print('TAP version 13')

    def ok(self, cond, name, diag=None):
        self.n += 1
        if not cond:
            self.failed += 1
        print(f'{"ok" if cond else "not ok"} {self.n} - {name}')
        if diag and not cond:
            for line in str(diag).splitlines():
                print('# ' + line)
        return cond

    def skip(self, name, why):
        self.n += 1
        print(f'ok {self.n} - {name} # SKIP {why}')

    def note(self, text):
        for line in str(text).splitlines():
            print('# ' + line)

    def done(self):
        print(f'1..{self.n}')
        return 1 if self.failed else 0
