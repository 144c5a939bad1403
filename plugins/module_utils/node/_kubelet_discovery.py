# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which KubeletConfiguration kubelet really reads: its --config and --config-dir.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Asked in order: kubelet's systemd unit as systemd will start it (ExecStart with Environment= and
EnvironmentFile= expanded: kubeadm's 10-kubeadm.conf and kubeadm-flags.env, kubespray's
kubelet.env), then a running kubelet process, then - where systemd is not running, as under a node's root - the
unit's files as systemd would load them, then the files kubeadm and kubespray write. The parsing
is pure; discover() does the reading, choose() asks the exists() it is given (a snapshot's, in node_cgroups).
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import os
import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._files import read_text
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_paths import (
    DEFAULT_DROPIN_DIR, HOST_ROOT, KNOWN_CONFIGS, KUBEADM_CONFIG, as_node_names, refuse_outside_root, under_root)
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._io_trace import traced, traced_systemctl

_ARGV = re.compile(r'argv\[\]=(.*?) ;')
_VARIABLE = re.compile(r'\$(?:\{(\w+)\}|(\w+))')
# A unit as parse_unit() reads it: {load_state, exec_start (argvs), environment, environment_files}.
Unit = Mapping[str, Any]


def kubelet_flags(argv: Iterable[str]) -> dict[str, str | None]:
    """{'config': ..., 'config_dir': ...} from kubelet's arguments, as pflag reads them (--name=value or
    --name value; the last one wins)."""
    flags: dict[str, str | None] = {'config': None, 'config_dir': None}
    names = {'--config': 'config', '--config-dir': 'config_dir'}
    words = list(argv)
    for index, word in enumerate(words):
        name, equals, value = word.partition('=')
        if name not in names:
            continue
        if not equals:
            value = words[index + 1] if index + 1 < len(words) else ''
        flags[names[name]] = value or None
    return flags


def parse_environment_file(text: str) -> dict[str, str]:
    """systemd's EnvironmentFile=: KEY=VALUE lines, quotes removed, # and ; comments skipped, a backslash
    at the end of a line joining the next (kubespray's kubelet.env spreads KUBELET_ARGS so)."""
    environment = {}
    for line in text.replace('\\\n', '').splitlines():
        line = line.strip()
        if not line or line[0] in '#;':
            continue
        try:
            words = shlex.split(line)
        except ValueError:
            continue
        if words and '=' in words[0]:
            key, _sep, value = ' '.join(words).partition('=')
            environment[key.strip()] = value
    return environment


def parse_environment_property(value: str) -> dict[str, str]:
    """systemctl show's Environment= value: assignments separated by spaces, quoted when they hold one."""
    try:
        words = shlex.split(value)
    except ValueError:
        words = value.split()
    return dict(word.partition('=')[::2] for word in words if '=' in word)


def expand_command(words: Iterable[str], environment: Mapping[str, str]) -> list[str]:
    """ExecStart's words as systemd expands them: a lone $NAME splits into words, ${NAME} stays one word."""
    result: list[str] = []
    for word in words:
        lone = re.match(r'^\$(\w+)$', word)
        if lone:
            result.extend(environment.get(lone.group(1), '').split())
            continue
        result.append(_VARIABLE.sub(lambda m: environment.get(m.group(1) or m.group(2), ''), word))
    return result


def parse_unit(show_output: str) -> dict[str, Any]:
    """The properties of `systemctl show -p LoadState,ExecStart,Environment,EnvironmentFiles`."""
    unit: dict[str, Any] = {'load_state': None, 'exec_start': [], 'environment': {}, 'environment_files': []}
    for line in show_output.splitlines():
        key, _sep, value = line.partition('=')
        if key == 'LoadState':
            unit['load_state'] = value.strip()
        elif key == 'ExecStart':
            for argv in _ARGV.findall(value):
                try:
                    unit['exec_start'].append(shlex.split(argv))
                except ValueError:
                    unit['exec_start'].append(argv.split())
        elif key == 'Environment':
            unit['environment'].update(parse_environment_property(value))
        elif key == 'EnvironmentFiles' and value.strip():
            unit['environment_files'].append(value.strip().rsplit(' (', 1)[0])
    return unit


# Where systemd loads units from, highest priority first (systemd.unit(5), the system manager's paths).
UNIT_DIRS = ('/etc/systemd/system', '/run/systemd/system', '/usr/local/lib/systemd/system', '/lib/systemd/system',
             '/usr/lib/systemd/system')


@traced_systemctl
def show_unit(systemctl: Callable[..., Any], service: str) -> dict[str, Any] | None:
    """parse_unit() of what systemd shows of service, None when systemctl fails. Traced as what it takes: systemd
    shows ExecStart= with the last start's time and PID, which a restart of the service moves."""
    rc, out, _err = systemctl('show', '--property=LoadState,ExecStart,Environment,EnvironmentFiles', service)
    return parse_unit(out) if rc == 0 else None


def parse_unit_files(texts: Sequence[str]) -> dict[str, Any] | None:
    """The unit as parse_unit() gives it, from the text of a unit file and then of each of its drop-ins, in the order
    systemd applies them: in [Service], ExecStart= empty resets the commands, Environment= adds assignments (quoted
    when they hold spaces), EnvironmentFile= adds a file ("-" before it: may be missing). None without a unit file."""
    if not texts:
        return None
    unit: dict[str, Any] = {'load_state': 'loaded', 'exec_start': [], 'environment': {}, 'environment_files': []}
    for text in texts:
        section = None
        for line in text.replace('\\\n', ' ').splitlines():
            line = line.strip()
            if not line or line[0] in '#;':
                continue
            if line.startswith('[') and line.endswith(']'):
                section = line[1:-1]
                continue
            key, equals, value = line.partition('=')
            if section != 'Service' or not equals:
                continue
            key, value = key.strip(), value.strip()
            if key == 'ExecStart':
                if not value:
                    unit['exec_start'] = []
                    continue
                try:
                    unit['exec_start'].append(shlex.split(value.lstrip('-@+!:')))
                except ValueError:
                    unit['exec_start'].append(value.lstrip('-@+!:').split())
            elif key == 'Environment':
                unit['environment'].update(parse_environment_property(value))
            elif key == 'EnvironmentFile' and value:
                unit['environment_files'].append(value.lstrip('-'))
    return unit


@traced
def read_unit_files(service: str, root: str = HOST_ROOT) -> list[str]:
    """[the unit file's text, then its drop-ins' (service.d/*.conf, by name; a name in a higher directory hides the
    same name below)] as systemd would load them from the node's root; [] without a unit file."""
    main: str | None = None
    dropins: dict[str, str] = {}
    for directory in UNIT_DIRS:
        base = under_root(root, directory)
        if main is None:
            main = read_text(os.path.join(base, service))
        dropin_dir = os.path.join(base, service + '.d')
        try:
            names = [name for name in os.listdir(dropin_dir) if name.endswith('.conf')]
        except OSError:
            names = []
        for name in names:
            dropins.setdefault(name, os.path.join(dropin_dir, name))
    if main is None:
        return []
    texts = [main]
    for name in sorted(dropins):
        text = read_text(dropins[name])
        if text is not None:
            texts.append(text)
    return texts


def unit_command(unit: Unit, read: Callable[[str], str | None], root: str = HOST_ROOT) -> list[str] | None:
    """kubelet's argv as systemd would start it, or None: Environment= first, then each EnvironmentFile= over it
    (read under the node's root)."""
    if unit['load_state'] != 'loaded' or not unit['exec_start']:
        return None
    environment = dict(unit['environment'])
    for path in unit['environment_files']:
        text = read(under_root(root, path))
        if text is not None:
            environment.update(parse_environment_file(text))
    return expand_command(unit['exec_start'][-1], environment)


@traced
def running_kubelets(proc_path: str) -> list[tuple[int, list[str]]]:
    """[(pid, argv)] of the processes named kubelet."""
    found: list[tuple[int, list[str]]] = []
    try:
        pids = [name for name in os.listdir(proc_path) if name.isdigit()]
    except OSError:
        return found
    for pid in sorted(pids, key=int):
        comm = read_text(os.path.join(proc_path, pid, 'comm'))
        if comm is None or comm.strip() != 'kubelet':
            continue
        cmdline = read_text(os.path.join(proc_path, pid, 'cmdline')) or ''
        found.append((int(pid), [word for word in cmdline.split('\0') if word]))
    return found


# The files kubeadm's unit drop-in (10-kubeadm.conf) reads $KUBELET_EXTRA_ARGS from: the operator's, which kubeadm
# documents as the place for extra flags and never writes (kubeadm join and kubeadm upgrade node rewrite
# kubeadm-flags.env and config.yaml, not these).
EXTRA_ARGS_VARIABLE = 'KUBELET_EXTRA_ARGS'
EXTRA_ARGS_FILES = ('/etc/default/kubelet', '/etc/sysconfig/kubelet')


def extra_args_file(unit: Unit | None) -> str | None:
    """The EnvironmentFile= of kubelet's unit that its ExecStart takes $KUBELET_EXTRA_ARGS from, as the unit names
    it (kubeadm's layout), or None."""
    if not unit or not unit['exec_start']:
        return None
    words = unit['exec_start'][-1]
    if not any(word in ('$' + EXTRA_ARGS_VARIABLE, '${%s}' % EXTRA_ARGS_VARIABLE) for word in words):
        return None
    named = [path for path in unit['environment_files'] if path.endswith(EXTRA_ARGS_FILES)]
    return named[-1] if named else None


def _found(argv: Sequence[str], source: str, root: str, unit: Unit | None = None) -> dict[str, Any]:
    """discover()'s answer from kubelet's argv: its paths as this machine reaches them, under the node's root (and
    from its unit, where kubelet's extra flags come from)."""
    flags = kubelet_flags(argv[1:])
    return {'source': source, 'config': under_root(root, flags['config']),
            'config_dir': under_root(root, flags['config_dir']), 'binary': under_root(root, argv[0] if argv else None),
            'extra_args_file': under_root(root, extra_args_file(unit))}


def discover(proc_path: str, systemctl: Callable[..., Any] | None = None, service: str = 'kubelet.service',
             root: str = HOST_ROOT) -> dict[str, Any]:
    """{source, config, config_dir, binary}: where kubelet is told to read its configuration, and the
    binary started, as paths under the node's root. source is None when no kubelet unit or process was found.

    systemctl(*args) -> (rc, stdout, stderr), or None when systemd is not PID 1.
    """
    if systemctl is not None:
        unit = show_unit(systemctl, service)
        argv = unit_command(unit, read_text, root) if unit else None
        if argv:
            return _found(argv, 'the %s unit' % service, root, unit)
    for pid, argv in running_kubelets(proc_path):
        return _found(argv, 'the running kubelet (pid %d)' % pid, root)
    if systemctl is None:
        # No systemd to ask (a node image under a root, a fake node): the unit as systemd will load it at boot.
        unit = parse_unit_files(read_unit_files(service, root))
        argv = unit_command(unit, read_text, root) if unit else None
        if argv:
            return _found(argv, 'the %s unit file under %s' % (service, root) if root != HOST_ROOT
                          else 'the %s unit file' % service, root, unit)
    return {'source': None, 'config': None, 'config_dir': None, 'binary': None, 'extra_args_file': None}


_KUBELET_VERSION = re.compile(r'\bv?(1\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?)\b')


def parse_kubelet_version(output: str | None) -> str | None:
    """"Kubernetes v1.29.4" (kubelet --version) -> "1.29.4", or None."""
    match = _KUBELET_VERSION.search(output or '')
    return match.group(1) if match else None


def ask_kubelet_version(binary: str, run: Callable[[list[str]], Any]) -> dict[str, Any]:
    """{version, binary, output}: what `binary --version` answers, version None when it gives no release.
    run(argv) -> (rc, stdout, stderr)."""
    rc, out, err = run([binary, '--version'])
    version = parse_kubelet_version(out) if rc == 0 else None
    return {'version': version, 'binary': binary, 'output': (out if rc == 0 else err or out).strip()}


def known_layouts(paths: Iterable[str] | None = None, root: str = HOST_ROOT) -> list[tuple[str, str]]:
    """[(path, layout)] of the places kubeadm and kubespray keep kubelet's configuration: KNOWN_CONFIGS under
    the node's root, or the paths given, each named by the layout whose path it ends with."""
    if not paths:
        return [(under_root(root, path), layout) for path, layout in KNOWN_CONFIGS]
    named = []
    for path in paths:
        layout = next((name for known, name in KNOWN_CONFIGS if path.endswith(known)), 'given')
        named.append((path, layout))
    return named


def _refuse_bad_paths(path: str | None, dropin_dir: str | None, option_prefix: str, root: str) -> None:
    """A relative path would be resolved against wherever the module runs, and ".." can lead out of the directory
    (or node root) the operator meant: refused before anything is read or written."""
    for option, value in (('kubelet_config_path', path), ('kubelet_dropin_dir', dropin_dir)):
        if value is not None and (not os.path.isabs(value) or '..' in value.split('/')):
            raise KubenodeError('must be an absolute path without ".." components', field=option_prefix + option,
                                value=value)
        refuse_outside_root(root, value, option_prefix + option)


def _choose_file(found: Mapping[str, Any], path: str | None, option_prefix: str, known: Iterable[str] | None, root: str,
                 exists: Callable[[str], bool] | None, warnings: list[str]) -> tuple[str, str]:
    """(file, reason): the --config kubelet runs with, else the operator's path, else the first usual place that
    exists, else kubeadm's (with a warning)."""
    source, config = found.get('source'), found.get('config')
    if source and not config:
        raise KubenodeError('%s starts kubelet without --config, so kubelet reads no configuration file; add '
                            '--config=%s to its flags' % (source, path or KUBEADM_CONFIG),
                            field=option_prefix + 'kubelet_config_path', value=path)
    if source and config:
        if path and os.path.normpath(path) != os.path.normpath(config):
            raise KubenodeError('kubelet never reads this file: %s starts it with --config=%s; leave '
                                '%skubelet_config_path unset to use that one' % (source, config, option_prefix),
                                field=option_prefix + 'kubelet_config_path', value=path)
        return config, 'the --config of %s' % source
    if path:
        return path, 'set by the operator (no kubelet unit or process found)'
    places = known_layouts(known, root)
    existing = [(place, layout) for place, layout in places if (exists or os.path.exists)(place)]
    if existing:
        return existing[0][0], 'no kubelet unit or process found; %s exists (%s layout)' % existing[0]
    warnings.append('this host has no kubelet yet (no kubelet.service, no kubelet process, none of %s): '
                    'the configuration is written to %s, where a kubeadm kubelet reads it'
                    % (', '.join(place for place, _layout in places), places[0][0]))
    return places[0][0], "no kubelet unit, process or configuration found; kubeadm's default path"


def _choose_dropin(found: Mapping[str, Any], chosen: str, dropin: bool | None, dropin_dir: str | None, option_prefix: str,
                   root: str, warnings: list[str]) -> tuple[bool, str, dict[str, str] | None, str]:
    """(dropin, the --config-dir, add_config_dir, what the reason adds): whether the change is a drop-in (by
    default where kubelet has a --config-dir) and where; in kubeadm's layout the --config-dir its flags file gives."""
    source, config_dir = found.get('source'), found.get('config_dir')
    flags_file = found.get('extra_args_file')
    default_dropin_dir = under_root(root, DEFAULT_DROPIN_DIR)
    if dropin is None:
        dropin = bool(config_dir)
    if not dropin and source and flags_file and chosen.endswith(KUBEADM_CONFIG):
        warnings.append('the reservation lives only in %s, which kubeadm join and kubeadm upgrade node rewrite from '
                        "the cluster's kubelet-config ConfigMap: set %skubelet_config_dropin to true to keep it in a "
                        'drop-in that kubeadm never writes (%s gives kubelet its --config-dir)'
                        % (chosen, option_prefix, flags_file))
    if dropin and source and not config_dir and flags_file:
        # kubeadm's layout: kubelet is given its --config-dir where kubeadm never writes (docs/guide.md).
        config_dir = dropin_dir or default_dropin_dir
        add_config_dir = {'file': flags_file, 'dir': config_dir, 'flag_dir': as_node_names(root, config_dir)}
        return dropin, config_dir, add_config_dir, (
            '; a drop-in in --config-dir %s, which %s in %s gives kubelet (kubeadm never writes that file)'
            % (config_dir, EXTRA_ARGS_VARIABLE, flags_file))
    if not dropin:
        return dropin, config_dir or dropin_dir or default_dropin_dir, None, ''
    if source and not config_dir:
        raise KubenodeError('%s starts kubelet without --config-dir, so kubelet would never read a drop-in; '
                            'add --config-dir to its flags or set %skubelet_config_dropin to false'
                            % (source, option_prefix), field=option_prefix + 'kubelet_config_dropin', value=True)
    if config_dir and dropin_dir and os.path.normpath(dropin_dir) != os.path.normpath(config_dir):
        raise KubenodeError('kubelet never reads drop-ins here: %s starts it with --config-dir=%s; leave '
                            '%skubelet_dropin_dir unset to use that one' % (source, config_dir, option_prefix),
                            field=option_prefix + 'kubelet_dropin_dir', value=dropin_dir)
    chosen_dir = config_dir or dropin_dir or default_dropin_dir
    return dropin, chosen_dir, None, '; a drop-in in --config-dir %s' % chosen_dir


def choose(found: Mapping[str, Any], path: str | None = None, dropin: bool | None = None, dropin_dir: str | None = None,
           exists: Callable[[str], bool] | None = None, option_prefix: str = '', known: Iterable[str] | None = None,
           root: str = HOST_ROOT) -> dict[str, Any]:
    """{path, dropin, dropin_dir, reason, warnings}: the file (or drop-in) to write, from what discover()
    found and the options, which may each be None (decide from the node). known: the usual places
    (known_layouts()); root: the node's root, under which everything found lies and everything is written;
    exists: whether a path exists (os.path.exists, looked up when asked so that a trace, node/_io_trace, sees it).

    An option that names a file or directory kubelet does not read is refused: writing there would
    change nothing while reporting success; so is one outside the node's root.
    """
    _refuse_bad_paths(path, dropin_dir, option_prefix, root)
    warnings: list[str] = []
    chosen, reason = _choose_file(found, path, option_prefix, known, root, exists, warnings)
    dropin, chosen_dir, add_config_dir, more = _choose_dropin(
        found, chosen, dropin, dropin_dir, option_prefix, root, warnings)
    # What the node names (its --config, its --config-dir) is under the root by construction; a chosen file
    # outside it means the root and the node disagree, and nothing is written.
    refuse_outside_root(root, chosen, option_prefix + 'kubelet_config_path')
    refuse_outside_root(root, chosen_dir if dropin else None, option_prefix + 'kubelet_dropin_dir')
    return {'path': chosen, 'dropin': dropin, 'dropin_dir': chosen_dir, 'reason': reason + more,
            'warnings': warnings, 'add_config_dir': add_config_dir}


def with_config_dir(text: str | None, directory: str) -> str:
    """The text of kubeadm's extra-flags file (an EnvironmentFile) with --config-dir=directory added to
    KUBELET_EXTRA_ARGS: appended to its last assignment (inside its quotes), or a new line when it has none."""
    flag = '--config-dir=%s' % directory
    lines = (text or '').splitlines()
    pattern = re.compile(r'^(\s*%s=)(["\']?)(.*?)(\2)\s*$' % EXTRA_ARGS_VARIABLE)
    for index in range(len(lines) - 1, -1, -1):
        match = pattern.match(lines[index])
        if match:
            head, quote, value = match.group(1), match.group(2), match.group(3).strip()
            lines[index] = '%s%s%s%s' % (head, quote, (value + ' ' + flag) if value else flag, quote)
            return '\n'.join(lines) + '\n'
    return '\n'.join(lines + ['%s=%s' % (EXTRA_ARGS_VARIABLE, flag)]) + '\n'
