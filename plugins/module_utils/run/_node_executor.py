# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Making a node match its plan: one executor per cgroup driver, one interface, and the one comparer.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

An executor takes a NodeSpec, the NodeSnapshot read once and the RunPlan planned from them, and performs the
steps: slice units and overrides (systemd driver), the boot script, the kernel operations (_node_cgroups'
ordered list), the kubelet configuration. Every step is recorded as a change (what node_cgroups returns) and
as a drift entry (item, check, live, planned). Dry (check mode) it records without writing: that record is
what node_cgroups --check, node_drift_info, the role's verification and the rollout gate all report, so
"does the node match?" has one answer.

kubelet has one cgroup manager per cgroup version with the driver as a parameter; here the executors split by
driver, because that is what differs in making a cgroup exist (mkdir, or a slice systemd starts), and the
cgroup version is the planner's parameter (_node_cgroups.plan_cgroupfs).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import errno
import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _boot_persistence as boot
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_files as cgfiles
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_names as names
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _cgroupfs as fs
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _kubelet_config_file as kc_file
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _node_cgroups as ops
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _preflight as preflight
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _restarts as restarts
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _systemd as systemd
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._files import replace_file
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_snapshot import read_cgroups


def drift(item, check, live, planned):
    """One way the node differs from its plan, as node_drift_info reports it."""
    return {'item': item, 'check': check, 'live': live, 'planned': planned}


class NodeModule(AnsibleModule):
    """The AnsibleModule of the modules that write a node. AnsibleModule's file methods (atomic_move,
    backup_local) end the module with fail_json on an OSError; inside raising_failures() they raise
    KubenodeError instead, so that the run can report what it had applied before (an honest partial result)."""

    def __init__(self, *args, **kwargs):
        self._raise_failures = False
        super(NodeModule, self).__init__(*args, **kwargs)

    @contextlib.contextmanager
    def raising_failures(self):
        self._raise_failures = True
        try:
            yield
        finally:
            self._raise_failures = False

    def fail_json(self, msg, **kwargs):
        if self._raise_failures:
            raise KubenodeError(msg)
        super(NodeModule, self).fail_json(msg=msg, **kwargs)


class ModuleHost(object):
    """What an executor needs of the module: systemctl, and atomic file replacement through it (a NodeModule,
    for the runs that write)."""

    def __init__(self, module):
        self.module = module
        self.systemctl = systemd.runner(module)

    def replace_file(self, path, content, mode):
        with self.module.raising_failures():
            replace_file(self.module, path, content, mode)

    def write_kubelet_config(self, change, backup):
        with self.module.raising_failures():
            return kc_file.write(self.module, change, backup)


class Executor(object):
    """What both drivers share: pre-flight, operations, files, systemctl, persistence, restarts, removal."""

    def __init__(self, host, spec, node, run, dry):
        self.host, self.spec, self.dry = host, spec, dry
        self.root, self.unit_dir = spec.cgroupfs_path, spec.systemd_unit_dir
        self.layout, self.systemd_running = node.layout, node.systemd_running
        self.driver, self.plan, self.entries = run.driver, run.plan, run.entries
        self.driver_source = run.driver_source
        self.kubelet_change = run.kubelet_change
        self.kernel = None  # the CgroupSnapshot the kernel operations are planned from
        self.applied, self.changes, self.diffs, self.warnings = [], [], [], list(run.warnings)
        self.found = []  # a drift entry per change, and what no change can mend
        self.comparing = False  # an audit: nothing is to be written, so no target is checked for writing
        self.services_changed, self.skipped_services = [], []
        self.persistence = None
        self.boot_operations = None
        self.kubelet_result = None

    # Driver specifics -----------------------------------------------------------------------------------
    def path_for(self, entry):
        raise NotImplementedError

    def prepare_units(self):
        """Units, drop-ins and overrides to write before the reload; True when systemd must reload."""
        raise NotImplementedError

    def start_units(self):
        """After the reload: what systemd must start. True when one was started."""
        return False

    def kernel_entries(self, boot_script):
        """[(key, entry)] for the cgroupfs planner: live, or for the boot script."""
        raise NotImplementedError

    def kernel_options(self):
        return {}

    def remove_service_dropins(self):
        """state=absent: the services' Slice= drop-ins (systemd driver). True when systemd must reload."""
        return False

    def remove_unit(self, entry):
        """state=absent: the slice's unit and overrides (systemd driver). True when systemd must reload."""
        return False

    # Recording ------------------------------------------------------------------------------------------
    def record(self, change, item, check, live, planned, diff=None):
        """A step this run makes (or, dry, would make): its change line, its drift entry and its diff."""
        self.changes.append(change)
        self.found.append(drift(item, check, live, planned))
        if diff is not None:
            self.diffs.append(diff)

    def _file_diff(self, path, before, after):
        return {'before_header': path, 'after_header': path, 'before': before, 'after': after}

    # Shared ---------------------------------------------------------------------------------------------
    def missing_file(self, key, path):
        raise KubenodeError('%s has no %s: the controller is not enabled for it' % (key, os.path.basename(path)),
                            field=key, value=path)

    def cgroupfs_entries(self, boot_script=False):
        return [(k, dict(e, cgroupfs_path=self.path_for(e))) for k, e in self.kernel_entries(boot_script)]

    def read_kernel(self):
        self.kernel = read_cgroups(self.layout, self.root, self.cgroupfs_entries())

    def kernel_operations(self, boot_script=False):
        state = ops.EMPTY_STATE if boot_script else self.kernel
        controllers = ops.offered_controllers(self.root, self.kernel) if self.layout['mode'] == 'v2' else []
        return ops.plan_cgroupfs(self.cgroupfs_entries(boot_script), ops.CgroupfsTarget(
            self.layout, self.root, controllers, **self.kernel_options()), self.missing_file, state)

    def write_targets(self):
        """[(option, path)] of the directories this run may write into, for the pre-flight."""
        # On v1 /sys/fs/cgroup itself is a read-only tmpfs: the hierarchies mounted in it are written.
        mounts = [self.root] if self.layout['mode'] == 'v2' else sorted(self.layout['v1_hierarchies'].values())
        targets = [('cgroupfs_path', mount) for mount in mounts]
        persisting = self.spec.persist and self.systemd_running
        if self.driver == 'systemd' or persisting:
            targets.append(('systemd_unit_dir', self.unit_dir))
        if persisting:
            targets.append(('persist_script', os.path.dirname(self.spec.persist_script)))
        if self.kubelet_change and self.kubelet_change['changed']:
            targets.append(('kubelet_config', os.path.dirname(self.kubelet_change['path'])))
        return targets

    def preflight(self):
        """Refuse up front, before the first write, what would fail half-way: read-only or full targets,
        a kernel plan that cannot be made (a controller the root does not offer), and a cgroup path that a
        symlink leads out of cgroupfs_path (the mount table names that tree, and nothing outside is ours)."""
        if not self.comparing:
            for option, directory in self.write_targets():
                problem = preflight.writable_directory_problem(directory, room=option != 'cgroupfs_path')
                if problem:
                    raise KubenodeError('%s: nothing was written' % problem, field=option, value=directory)
        self.read_kernel()
        operations = self.kernel_operations()
        self.boot_operations = self.kernel_operations(boot_script=True)
        if not self.comparing:
            for operation in operations:
                real = preflight.leads_outside(operation.path, self.root)
                if real:
                    raise KubenodeError('%s leads out of the cgroup tree through a symlink (to %s): nothing was '
                                        'written' % (operation.path, real), field='cgroupfs_path', value=self.root)

    def present(self):
        self.preflight()
        reload_needed = self.prepare_units()
        reload_needed = self.persist() or reload_needed
        if reload_needed and self.systemd_running:
            self.systemctl_step('daemon-reload')
        if self.start_units() or (reload_needed and not self.dry):
            self.read_kernel()  # systemd has re-realized the slices: their cgroups are not what was read
        for operation in self.kernel_operations():
            self.run(operation)
        if self.persistence and self.persistence['changed'] and self.systemd_running:
            # Runs the new script once now, so a script this kernel refuses fails here, not at the next boot.
            self.systemctl_step('restart', boot.UNIT_NAME)
        if self.kubelet_change:
            self.write_kubelet_config()

    def run(self, operation):
        if operation.kind == 'write' and cgfiles.skipped_when_missing(os.path.basename(operation.path), operation.value) \
                and not self.dry and not os.path.exists(operation.path):
            return  # a kernel without this file (hugetlb reservations before 5.7, swap.max without swap accounting)
        diff = None
        if operation.kind in ('write', 'enable', 'copy'):
            after = operation.value if operation.value is not None else '(the value of %s)' % operation.source
            diff = self._file_diff(operation.path, '%s\n' % (operation.before or ''), '%s\n' % after)
        self.record(operation.describe(), operation.cgroup, *operation.drift(), diff=diff)
        if self.dry:
            return
        if operation.kind == 'mkdir':
            self._os(os.mkdir, operation.path)
        elif operation.kind == 'copy':
            # The parent's value as it is now: a parent made by this run was filled just before.
            fs.write_file(operation.path, fs.read_file(operation.source) or '')
        elif operation.kind in ('write', 'enable'):
            fs.write_file(operation.path, operation.value)
        elif operation.kind == 'rmdir':
            self._os(os.rmdir, operation.path)
        self.applied.append(operation.describe())

    def persist(self):
        """Write (or, with persist=false, remove) the boot script, its unit and kubelet's drop-in."""
        files = boot.paths(self.unit_dir, self.spec.persist_script, self.spec.kubelet_unit())
        if not self.spec.persist:
            return self.remove_persistence(files)
        if not self.systemd_running:
            self.warnings.append('systemd is not PID 1 here, so nothing will put these cgroups back after a '
                                 'reboot: kubelet will refuse to start until node_cgroups runs again (persist)')
            return False
        slices = [e['systemd_unit'] for _k, e in self.entries] if self.driver == 'systemd' else []
        wanted = {
            files['script']: (boot.script(self.boot_operations, self.driver, self.layout['mode']), 0o755),
            files['unit']: (boot.unit(files['script'], self.spec.kubelet_unit(), slices), 0o644),
            files['kubelet_dropin']: (boot.kubelet_dropin(files['script']), 0o644),
        }
        changed = False
        for path in (files['script'], files['unit'], files['kubelet_dropin']):
            changed = self.ensure_file(path, 'boot persistence', *wanted[path]) or changed
        link = files['wants_link']
        if not (os.path.islink(link) and os.readlink(link) == files['unit']):
            self.record('enable %s (link %s)' % (boot.UNIT_NAME, link), 'boot persistence', link,
                        os.readlink(link) if os.path.islink(link) else 'missing', files['unit'])
            if not self.dry:
                self.link(files['unit'], link)
            changed = True
        self.persistence = dict(files, changed=changed)
        return changed

    def remove_persistence(self, files):
        removed = False
        for path in (files['wants_link'], files['kubelet_dropin'], files['unit'], files['script']):
            removed = self.remove_file(path, 'boot persistence') or removed
        return removed

    def ensure_file(self, path, item, content, mode):
        """Write a whole file atomically when it differs; True when it did (or would)."""
        current = fs.read_file(path)
        if current is not None and current.strip() == content.strip():
            return False
        self.record(('update %s' if current is not None else 'create %s') % path, item, path,
                    'differs' if current is not None else 'missing', 'as planned',
                    self._file_diff(path, (current + '\n') if current else '', content))
        if not self.dry:
            self.host.replace_file(path, content, mode)
            self.applied.append('wrote %s' % path)
        return True

    def remove_file(self, path, item, reason=None, before=None, check=None):
        """Remove a file (or link) the plan does not want, with the diff of a file's content. True when it did
        (or, dry, would)."""
        if not os.path.lexists(path):
            return False
        link = os.path.islink(path)
        text = fs.read_file(path) if before is None and not link else before
        diff = None if link else self._file_diff(path, (text or '') + '\n', '')
        self.record('remove %s%s' % (path, ' (%s)' % reason if reason else ''), item, check or path,
                    text or 'present', 'absent', diff)
        if not self.dry:
            self._os(os.remove, path)
            self.applied.append('removed %s' % path)
        return True

    def link(self, target, path):
        directory = os.path.dirname(path)
        if not os.path.isdir(directory):
            os.makedirs(directory, 0o755)
        if os.path.lexists(path):
            os.remove(path)
        os.symlink(target, path)
        self.applied.append('linked %s' % path)

    def find_restarts(self):
        """Services that run with an older configuration or slice than the one on disk (after this run's
        writes, so an interrupted run's restart is found again by the next run)."""
        if not self.systemd_running:
            return []
        kubelet = self.spec.kubelet_unit()
        watched = {}
        if self.kubelet_change:
            watched[kubelet] = {'files': [self.kubelet_change['path']], 'slice_path': None}
        kube_reserved = dict(self.entries).get('kube_reserved')
        if self.driver == 'systemd' and kube_reserved:
            for service in [systemd.service_name(s) for s in self.spec.services]:
                dropin = systemd.service_dropin_path(self.unit_dir, service)
                if os.path.exists(dropin) and service not in self.skipped_services:
                    entry = watched.setdefault(service, {'files': [], 'slice_path': None})
                    entry['files'].append(dropin)
                    entry['slice_path'] = kube_reserved['systemd_path']
        if not watched:
            return []
        shown = restarts.read_units(self.host.systemctl, sorted(watched))
        files = [path for entry in watched.values() for path in entry['files']]
        left_behind = dict((unit, self.processes_left_behind(shown.get(unit) or {})) for unit in watched)
        found = restarts.pending(watched, shown, restarts.file_mtimes(files), left_behind=left_behind)
        for held in [entry for entry in found if entry.get('held')]:
            self.warnings.append('%s %s, held there by %d process(es) it left running (container shims): systemd keeps '
                                 'a unit\'s cgroup while they run, so a restart would not move it; it moves when they '
                                 'end, at the latest at the next boot'
                                 % (held['service'], held['reason'], left_behind[held['service']]))
        return [entry for entry in found if not entry.get('held')]

    def processes_left_behind(self, fields):
        """How many processes other than the unit's main one its cgroup holds (systemd's own hierarchy)."""
        group = fields.get('ControlGroup') or ''
        if not group:
            return 0
        base = self.root if self.layout['mode'] == 'v2' else self.layout['v1_hierarchies'].get('systemd')
        if not base:
            return 0
        text = fs.read_file(os.path.join(base, group.lstrip('/'), cgfiles.PROCS_FILE)) or ''
        return len([pid for pid in text.split() if pid != str(fields.get('MainPID') or '')])

    def write_kubelet_config(self):
        """Write the planned kubelet configuration; kubelet_config's result goes to self.kubelet_result."""
        change = self.kubelet_change
        self.kubelet_result = kc_file.summary(change)
        if not change['changed']:
            return
        self.record('write %s' % change['path'], 'kubelet config', change['path'],
                    '; '.join(change['replaced']) or ('missing' if change['before'] is None else 'differs'),
                    'the planned keys', kc_file.diff(change))
        if not self.dry:
            backup_file = self.host.write_kubelet_config(change, self.spec.kubelet_config_option('backup', False))
            self.applied.append('wrote %s' % change['path'])
            if backup_file:
                self.kubelet_result['backup_file'] = backup_file

    def _os(self, function, path):
        try:
            function(path)
        except OSError as error:
            raise fs.CgroupWriteError('%s %s failed: %s' % (function.__name__, path, os.strerror(error.errno or errno.EIO)),
                                      field=path)

    def systemctl_step(self, *args):
        """A systemctl call that changes the node: recorded, and made unless dry."""
        unit = args[-1] if len(args) > 1 else 'systemd'
        self.record('systemctl %s' % ' '.join(args), unit, 'systemctl %s' % args[0], 'needed', 'done')
        if not self.dry:
            try:
                systemd.checked(self.host.systemctl, *args)
            except KubenodeError as error:
                raise self.driver_error(str(error))
            self.applied.append('systemctl %s' % ' '.join(args))

    def driver_error(self, message):
        """An error of the cgroup driver's steps: blamed on cgroup_driver when the operator named the driver, else
        on the node, saying where the driver was detected."""
        if self.driver_source is None:
            return KubenodeError(message, field='cgroup_driver', value=self.driver)
        return KubenodeError('%s (the %s cgroup driver was detected from %s; cgroup_driver names another)'
                             % (message, self.driver, self.driver_source), field='node', value=self.driver)

    def installed_services(self):
        """The given services systemd knows; the rest go to services_not_installed."""
        names = [systemd.service_name(s) for s in self.spec.services]
        if not names or not self.systemd_running:
            self.skipped_services.extend(names)
            return []
        states = dict((unit, fields.get('LoadState'))
                      for unit, fields in systemd.show(self.host.systemctl, names, ['Id', 'LoadState']).items())
        self.skipped_services.extend(n for n in names if states.get(n) != 'loaded')
        return [n for n in names if states.get(n) == 'loaded']

    def absent(self):
        reload_needed = self.remove_service_dropins()
        for key, entry in reversed(self.entries):
            relative = self.path_for(entry)
            shipped = self.driver == 'systemd' and systemd.is_shipped(entry['systemd_unit'])
            if not shipped:
                self.refuse_if_busy(key, relative)
            reload_needed = self.remove_unit(entry) or reload_needed
            for directory in [] if shipped else self.directories(relative):
                if os.path.isdir(directory) and relative.strip('/'):
                    self.run(ops.Operation('rmdir', directory, cgroup=key))
        # The boot script would bring the removed cgroups back: it goes too (a later present run rewrites it).
        reload_needed = self.remove_persistence(
            boot.paths(self.unit_dir, self.spec.persist_script, self.spec.kubelet_unit())) or reload_needed
        if reload_needed and self.systemd_running:
            self.systemctl_step('daemon-reload')

    def directories(self, relative):
        if self.layout['mode'] == 'v2':
            return [fs.cgroup_path(self.root, relative, 'path')]
        return [fs.cgroup_path(mount, relative, 'path') for mount in self.layout['v1_hierarchies'].values()]

    def refuse_if_busy(self, key, relative):
        for directory in self.directories(relative):
            for current, _dirs, files in os.walk(directory):
                if cgfiles.PROCS_FILE in files and (fs.read_file(os.path.join(current, cgfiles.PROCS_FILE)) or '').strip():
                    raise KubenodeError('refusing to remove %s: processes are still inside %s' % (key, current),
                                        field='state', value='absent')


class CgroupfsExecutor(Executor):
    """kubelet's cgroupfs manager: every directory, controller and value is ours to write."""

    def path_for(self, entry):
        return entry['cgroupfs_path']

    def prepare_units(self):
        self.installed_services()  # only looked up: the cgroupfs driver has no slice to place them in
        owned = [k for k, e in self.entries if self.systemd_running and names.systemd_owned(e['cgroupfs_path'])]
        if owned:
            paths = ', '.join(dict(self.entries)[k]['cgroupfs_path'] for k in owned)
            self.warnings.append(
                '%s: systemd owns %s and resets its cpu, memory and pids values at every daemon-reload (and drops '
                'controllers no unit asks for), so the reservation is lost until kubelet restarts (the boot script '
                'puts it back then). Use the systemd cgroup driver, or a cgroup systemd does not own, such as '
                '/system-reserved.' % (', '.join(owned), paths))
        if self.layout['mode'] == 'v2' and self.systemd_running and not owned:
            self.warnings.append('systemd is PID 1 on this cgroup v2 host: "systemctl daemon-reload" removes '
                                 'controllers no unit needs from cgroup.subtree_control, so cgroupfs-driver cgroups '
                                 'can lose cpu.weight until kubelet restarts (the boot script puts it back then). '
                                 'The systemd cgroup driver is the supported choice here.')
        return False

    def kernel_entries(self, boot_script):
        return self.entries


class SystemdExecutor(Executor):
    """kubelet's systemd manager: slice units hold the values systemd can express; the kernel is checked
    against the plan, and what systemd cannot express (v1 cpuset and hugetlb directories, v2 hugetlb and
    cpuset in cgroup.subtree_control, hugetlb limits) is written to cgroupfs."""

    def __init__(self, *args):
        super(SystemdExecutor, self).__init__(*args)
        self.pending_units = set()

    def path_for(self, entry):
        return entry['systemd_path']

    def properties(self, entry):
        return systemd.planned_properties(entry, self.layout['mode'])

    def prepare_units(self):
        if not self.systemd_running:
            raise self.driver_error('the systemd cgroup driver needs systemd as PID 1, and it is not (%s/1/comm)'
                                    % self.spec.proc_path)
        reload_needed = self.place_services()
        for key, entry in self.entries:
            unit = entry['systemd_unit']
            path = systemd.slice_unit_path(self.unit_dir, unit)
            if self.ensure_file(path, unit, systemd.render_slice(key, entry, self.properties(entry)), 0o644):
                self.pending_units.add(unit)
            planned = self.properties(entry)
            if key in ops.KUBELET_WRITES_VALUES:
                continue  # kubelet sets these slices' values over D-Bus: its overrides are its own
            if self.remove_overrides(unit, lambda setting, value, p=planned: systemd.disagrees(setting, value, p)):
                self.pending_units.add(unit)
        return bool(self.pending_units) or reload_needed

    def remove_overrides(self, unit, unwanted):
        """Remove the overrides for which unwanted(setting, value) is true. True when one went."""
        removed = False
        for path, setting, value in systemd.read_overrides(self.spec.systemd_control_dirs, unit):
            if unwanted(setting, value):
                removed = self.remove_file(path, unit, '%s=%s overrides the plan' % (setting, value),
                                           '%s=%s' % (setting, value), 'override ' + path) or removed
        return removed

    def start_units(self):
        started = False
        for _key, entry in self.entries:
            unit = entry['systemd_unit']
            _rc, state, _err = self.host.systemctl('is-active', unit)
            if state.strip() != 'active':
                self.systemctl_step('start', unit)
                started = started or not self.dry
            if not (self.dry and unit in self.pending_units):
                self.confirm_live_properties(unit, self.properties(entry))
        return started

    def confirm_live_properties(self, unit, planned):
        """systemd must show the planned values once the unit and overrides are right; if it does not,
        something beyond them overrides the plan (another drop-in), which is named, not papered over."""
        if not planned:
            return
        live = systemd.show(self.host.systemctl, [unit], ['Id'] + sorted(planned)).get(unit)
        if live is None:
            raise self.driver_error('systemctl show %s failed' % unit)
        differing = [name for name in sorted(planned) if live.get(name) != planned[name]]
        if not differing:
            return
        message = ('%s: systemd shows %s although the unit file and overrides hold the plan; another drop-in '
                   'overrides them (see "systemctl cat %s")'
                   % (unit, ', '.join('%s=%s (plan: %s)' % (n, live.get(n), planned[n]) for n in differing), unit))
        if not self.dry:
            raise self.driver_error(message)
        self.warnings.append(message)
        # No step of this run mends it: the audit names it as what cannot be an operation.
        self.found.extend(drift(unit, name, live.get(name, 'absent'), planned[name]) for name in differing)

    def kernel_entries(self, boot_script):
        """The values to compare with the kernel. kubelet writes hugetlb on kubepods and the QoS tiers
        itself; the reserved cgroups keep theirs. The boot script holds only what systemd cannot express."""
        entries = []
        v2 = self.layout['mode'] == 'v2'
        for key, entry in self.entries:
            files = dict(entry['v2_files' if v2 else 'v1_files'])
            if not key.endswith('_reserved'):
                files = dict((f, v) for f, v in files.items() if cgfiles.v1_hierarchy(f) != 'hugetlb')
            if boot_script:
                outside_systemd = ('hugetlb',) if v2 else ('hugetlb', 'cpuset')
                files = dict((f, v) for f, v in files.items() if cgfiles.v1_hierarchy(f) in outside_systemd)
            entries.append((key, dict(entry, v1_files=files, v2_files=files)))
        return entries

    def kernel_options(self):
        if self.layout['mode'] == 'v2':
            # kubelet validates the controllers of the reserved slices and enables kubepods' itself;
            # systemd drops cpuset again from any slice it re-realizes.
            return {'create_dirs': False, 'enable_for': ('system_reserved', 'kube_reserved')}
        return {'mkdir_hierarchies': ('cpuset', 'hugetlb')}

    def place_services(self):
        """Slice= drop-ins that run the given services in the kube-reserved slice. True when one changed."""
        services = self.installed_services()
        if not services:
            return False
        unit = dict(self.entries)['kube_reserved']['systemd_unit']
        changed = False
        for name in services:
            path = systemd.service_dropin_path(self.unit_dir, name)
            if self.ensure_file(path, name, systemd.render_service_dropin(name, unit), 0o644):
                self.services_changed.append(name)
                changed = True
        return changed

    def remove_service_dropins(self):
        removed = False
        for service in self.spec.services or []:
            name = systemd.service_name(service)
            if self.remove_file(systemd.service_dropin_path(self.unit_dir, name), name):
                self.services_changed.append(name)
                removed = True
        return removed

    def remove_unit(self, entry):
        unit = entry['systemd_unit']
        shipped = systemd.is_shipped(unit)
        path = systemd.slice_unit_path(self.unit_dir, unit)
        removed = False
        if os.path.exists(path):
            if not shipped:
                self.systemctl_step('stop', unit)
            removed = self.remove_file(path, unit)
        # Overrides would come back with the slice: all of them go, and on a shipped slice those the plan set.
        planned = self.properties(entry)
        return self.remove_overrides(
            unit, lambda setting, value: not shipped or cgfiles.PROPERTY_BY_SETTING[setting] in planned) or removed


def executor_for(driver):
    return SystemdExecutor if driver == 'systemd' else CgroupfsExecutor
