# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Stand-in for the get-pip.py that ansible-test downloads to bootstrap its sanity venvs.

ansible-test fetches get-pip.py from a host this project's machines cannot reach, but
reads it from ~/.ansible/test/cache/get_pip_<version>.py first. This script does the same
job with what every CPython has (ensurepip) and the package index pip already uses:
it receives get-pip's arguments (pip options and the packages to install).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import subprocess
import sys

GET_PIP_ONLY = ('--no-setuptools', '--no-wheel')


def main():
    arguments = [a for a in sys.argv[1:] if a not in GET_PIP_ONLY]
    subprocess.check_call([sys.executable, '-m', 'ensurepip', '--default-pip'])
    subprocess.check_call([sys.executable, '-m', 'pip', 'install', '--quiet'] + arguments)


if __name__ == '__main__':
    main()
