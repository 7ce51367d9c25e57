#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run a validator and fail unless it is clean.

    check-clean.py [--fail-on REGEX] -- COMMAND [ARGUMENT…]

Fails when COMMAND exits with an error, or when a line of what it prints
matches REGEX (by default: any line that is not empty). Validators such as
desktop-file-validate exit successfully after warnings and hints; here they
count as failures.
"""
import argparse
import re
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--fail-on', default=r'\S',
                        help='regular expression for output lines that fail the check')
    parser.add_argument('command', nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ['--'] else args.command
    if not command:
        parser.error('no command given')

    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, check=False)
    print('$', ' '.join(command))
    print(result.stdout, end='')
    bad = [line for line in result.stdout.splitlines() if re.search(args.fail_on, line)]
    if result.returncode != 0:
        print(f'FAIL: {command[0]} exited with status {result.returncode}', file=sys.stderr)
        return 1
    if bad:
        print(f'FAIL: {len(bad)} line(s) of {command[0]} match {args.fail_on!r}:', file=sys.stderr)
        for line in bad:
            print('  ' + line, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
