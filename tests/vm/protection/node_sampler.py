# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_sampler.py --out FILE --seconds N [--unit UNIT=COMM ...] [--cgroup PATH ...]: what a node under pressure
goes through, once a second, as JSON lines (issue 76). It runs on the test VM (cgroup v2) under systemd-run with
OOMScoreAdjust=-1000, so that the kernel never picks the witness, and reads only files:

- memory.available as kubelet's eviction manager computes it on cgroup v2: capacity (MemTotal) minus the root
  cgroup's working set, which cadvisor takes from runc's rootStatsFromMeminfo (usage = MemTotal - MemFree) less the
  root memory.stat's inactive_file (pkg/kubelet/eviction/helpers.go makeSignalObservations);
- the kernel's OOM kills: /proc/vmstat's oom_kill for the whole node, each cgroup's memory.events (hierarchical)
  for kubepods, the reserved slices and the units, and the victims from /dev/kmsg's oom-kill lines;
- PSI (memory and cpu, "some" avg10) and pids.current of each cgroup, the node's threads (/proc/loadavg);
- each unit's main process (its PID and start time: a restart shows as a new pair), found by its command name in
  the unit's cgroup;
- kubelet's healthz latency (http://127.0.0.1:10248/healthz, 2 s timeout).

It stops at --seconds or at SIGTERM, whichever comes first, and flushes every line: the series survives a kill."""

import argparse
import json
import os
import signal
import time
import urllib.request

CGROUP = '/sys/fs/cgroup'
HEALTHZ = 'http://127.0.0.1:10248/healthz'
KMSG_WORDS = ('oom-kill:', 'Killed process', 'invoked oom-killer', 'Memory cgroup out of memory', 'Out of memory')


def read(path):
    """A file's text, or None when it cannot be read (a cgroup that is not there yet)."""
    try:
        with open(path) as handle:
            return handle.read()
    except (IOError, OSError):
        return None


def keyed(text):
    """'key value' lines as a dict of ints."""
    values = {}
    for line in (text or '').splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip('-').isdigit():
            values[parts[0]] = int(parts[1])
    return values


def meminfo():
    """/proc/meminfo in bytes."""
    values = {}
    for line in (read('/proc/meminfo') or '').splitlines():
        name, rest = line.split(':', 1) if ':' in line else (line, '')
        fields = rest.split()
        if fields and fields[0].isdigit():
            values[name] = int(fields[0]) * (1024 if fields[1:] == ['kB'] else 1)
    return values


def memory_available():
    """{capacity, working_set, available} as kubelet's eviction manager sees the node on cgroup v2."""
    info = meminfo()
    capacity = info.get('MemTotal', 0)
    usage = capacity - info.get('MemFree', 0)
    inactive_file = keyed(read(os.path.join(CGROUP, 'memory.stat'))).get('inactive_file', 0)
    working_set = max(0, usage - inactive_file)
    return {'capacity': capacity, 'working_set': working_set, 'available': capacity - working_set}


def psi_some_avg10(text):
    """The "some avg10" of a PSI file, or None."""
    for line in (text or '').splitlines():
        if line.startswith('some '):
            for field in line.split()[1:]:
                name, value = field.split('=', 1) if '=' in field else (field, '')
                if name == 'avg10':
                    return float(value)
    return None


def cgroup_sample(path):
    """OOM events, PSI, pids and memory of one cgroup (None where the file is missing)."""
    directory = os.path.join(CGROUP, path.strip('/'))
    if not os.path.isdir(directory):
        return None
    events = keyed(read(os.path.join(directory, 'memory.events')))
    pids = (read(os.path.join(directory, 'pids.current')) or '').strip()
    memory = (read(os.path.join(directory, 'memory.current')) or '').strip()
    return {'oom': events.get('oom'), 'oom_kill': events.get('oom_kill'), 'max': events.get('max'),
            'pids': int(pids) if pids.isdigit() else None,
            'memory': int(memory) if memory.isdigit() else None,
            'memory_psi': psi_some_avg10(read(os.path.join(directory, 'memory.pressure'))),
            'cpu_psi': psi_some_avg10(read(os.path.join(directory, 'cpu.pressure')))}


def unit_cgroup(unit):
    """The cgroup of a unit's processes: where its main process is, else systemd's path for it."""
    for slice_path in ('system.slice', 'kube.slice', 'runtime.slice', 'podruntime.slice'):
        directory = os.path.join(CGROUP, slice_path, unit)
        if os.path.isdir(directory):
            return directory
    for root, dirs, _files in os.walk(CGROUP):
        if unit in dirs:
            return os.path.join(root, unit)
        if root.count('/') > 6:
            dirs[:] = []
    return None


def main_process(unit, comm):
    """(pid, start time in clock ticks) of the process named comm in the unit's cgroup, or (None, None)."""
    directory = unit_cgroup(unit)
    for pid in (read(os.path.join(directory, 'cgroup.procs')) or '').split() if directory else ():
        if (read('/proc/%s/comm' % pid) or '').strip() == comm:
            stat = read('/proc/%s/stat' % pid) or ''
            fields = stat.rpartition(')')[2].split()
            return int(pid), int(fields[19]) if len(fields) > 19 else None
    return None, None


def healthz_ms():
    """kubelet's healthz answer time in ms, or None when it does not answer ok within 2 s."""
    start = time.monotonic()
    try:
        with urllib.request.urlopen(HEALTHZ, timeout=2) as answer:
            ok = answer.status == 200
    except Exception:  # pylint: disable=broad-exception-caught  # any failure is a failed probe
        return None
    return round((time.monotonic() - start) * 1000, 1) if ok else None


def open_kmsg():
    """/dev/kmsg opened at its end, non-blocking: each read returns one new record."""
    try:
        descriptor = os.open('/dev/kmsg', os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    os.lseek(descriptor, 0, os.SEEK_END)
    return descriptor


def kmsg_records(descriptor):
    """The new kernel log records about OOM, as their messages."""
    records = []
    while descriptor is not None:
        try:
            record = os.read(descriptor, 8192).decode('utf-8', 'replace')
        except BlockingIOError:
            break
        except OSError:  # EPIPE: records were overwritten before they were read; go on from the next
            continue
        message = record.partition(';')[2].split('\n', 1)[0]
        if any(word in message for word in KMSG_WORDS):
            records.append(message)
    return records


def sample(units, cgroups, kmsg):
    """One line of the series."""
    loadavg = (read('/proc/loadavg') or '0 0 0 0/0').split()
    line = {'t': round(time.time(), 3), 'memory': memory_available(),
            'vmstat_oom_kill': keyed(read('/proc/vmstat')).get('oom_kill'),
            'threads': int(loadavg[3].partition('/')[2] or 0),
            'cgroups': {path: cgroup_sample(path) for path in cgroups},
            'units': {}, 'healthz_ms': healthz_ms(), 'kmsg': kmsg_records(kmsg)}
    for unit, comm in units:
        pid, started = main_process(unit, comm)
        line['units'][unit] = {'pid': pid, 'start': started}
    return line


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    parser.add_argument('--out', required=True)
    parser.add_argument('--seconds', type=int, required=True, help='at most 1 to 1800')
    parser.add_argument('--unit', action='append', default=[], help='UNIT=COMM, for example kubelet.service=kubelet')
    parser.add_argument('--cgroup', action='append', default=[], help='a cgroup under /sys/fs/cgroup')
    args = parser.parse_args()
    if not 1 <= args.seconds <= 1800:
        parser.error('--seconds %d: give 1 to 1800' % args.seconds)
    units = [tuple(spec.split('=', 1)) for spec in args.unit]
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    kmsg = open_kmsg()
    deadline = time.monotonic() + args.seconds
    with open(args.out, 'w') as out:
        while not stop and time.monotonic() < deadline:
            tick = time.monotonic()
            out.write(json.dumps(sample(units, args.cgroup, kmsg), sort_keys=True) + '\n')
            out.flush()
            time.sleep(max(0.0, 1.0 - (time.monotonic() - tick)))


if __name__ == '__main__':
    main()
