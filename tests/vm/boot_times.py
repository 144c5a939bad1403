# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""boot_times.py FILE: the VM boots of a run (start-vm.sh's boot-times.tsv), one line each, then the median and
the worst seconds from qemu's start to the first ssh login, and how many boots were retried."""
import statistics
import sys

COLUMNS = ('vm', 'mode', 'boot', 'outcome', 'lock_wait', 'to_word', 'to_ssh', 'guest_uptime', 'failed_logins')


def read_boots(path):
    with open(path, encoding='utf-8') as rows:
        return [dict(zip(COLUMNS, line.rstrip('\n').split('\t'))) for line in rows if line.strip()]


def summary(boots):
    lines = ['VM boots (seconds from qemu\'s start: to the guest\'s word that sshd is up, to the first ssh login;'
             ' waiting for another boot before):']
    for boot in boots:
        lines.append('  {vm} ({mode}) boot {boot}: {outcome}; word {to_word} s, ssh {to_ssh} s (guest uptime {guest_uptime} s,'
                     ' {failed_logins} failed logins); waited {lock_wait} s'.format(**boot))
    ready = [float(boot['to_ssh']) for boot in boots if boot['outcome'] == 'ready']
    if not boots:
        lines = ['VM boots: none']
    elif ready:
        failed = [boot for boot in boots if boot['outcome'] != 'ready']
        held = [boot for boot in failed if 'held back by the test' in boot['outcome']]
        text = ('VM boot to ssh: {} boots, median {:.1f} s, worst {:.1f} s; {} boot(s) failed ({} of them held back'
                ' by the boot test on purpose)')
        lines.append(text.format(len(ready), statistics.median(ready), max(ready), len(failed), len(held)))
    else:
        lines.append('VM boot to ssh: no VM became ready')
    return '\n'.join(lines)


if __name__ == '__main__':
    try:
        print(summary(read_boots(sys.argv[1])))
    except OSError as error:
        print('VM boot times: none recorded ({})'.format(error))
