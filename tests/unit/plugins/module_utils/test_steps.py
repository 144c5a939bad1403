# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The steps apart from their execution: planned from snapshots without writing (_node_steps, _drivers), performed
by one loop (_steps.perform) against a host (node/_hosts). A dry host records the very steps a live one applies,
and no code of the steps layer asks whether it is dry or which driver it has."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import os

import pytest

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HostError, KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._node_plan import NodePlan
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._planned_cgroup import PlannedCgroup
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._cgroupfs import CgroupLayout
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._hosts import DryHost, LiveHost
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._unit_snapshot import UnitFile, UnitSnapshot
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _node_cgroups as ops
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _node_steps as steps
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _restarts as restarts
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._drivers import DRIVERS
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._steps import (
    ConfirmProperties, DriverOrigin, MakeLink, Record, RemoveFile, Systemctl, WriteFile, perform)

RUN_DIR = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'plugins', 'module_utils', 'run')
STEPS_LAYER = ('_steps.py', '_node_steps.py', '_drivers.py')


class Obj(object):
    def __init__(self, **fields):
        self.__dict__.update(fields)


class FakeSystemctl(object):
    """systemctl as the steps use it: show answers from properties, every other call is recorded."""

    def __init__(self, properties=None, failing=()):
        self.properties, self.failing, self.calls = properties or {}, failing, []

    def __call__(self, *args):
        self.calls.append(args)
        if args[0] == 'show':
            unit = args[-1]
            return 0, '\n'.join(['Id=%s' % unit] + ['%s=%s' % kv for kv in sorted(self.properties.items())]), ''
        if args[0] in self.failing:
            return 1, '', 'Access denied'
        return 0, '', ''


SLICE = PlannedCgroup('system_reserved', '/system-reserved', '/system.slice/system-reserved.slice', 'system-reserved.slice',
                      v2_files={'memory.max': '1073741824'}, v2_properties={'MemoryMax': '1073741824'})
SHIPPED = SLICE._replace(systemd_unit='system.slice', systemd_path='/system.slice')


def node_run(tmp_path, driver='systemd', entries=(('system_reserved', SLICE),), running=True, persist=False,
             node_root='/'):
    spec = Obj(cgroupfs_path=str(tmp_path / 'cgroup'), systemd_unit_dir=str(tmp_path / 'units'), services=[],
               persist=persist, persist_script=str(tmp_path / 'bin' / 'kubenode-cgroups'), proc_path='/proc',
               node_root=node_root, generations_dir=str(tmp_path / 'generations'),
               systemd_control_dirs=[], kubelet_unit=lambda: 'kubelet.service',
               kubelet_config_option=lambda name, fallback=None: fallback)
    node = Obj(layout=CgroupLayout('v2', {}, str(tmp_path / 'cgroup')), systemd_running=running)
    run = Obj(plan={}, entries=list(entries), kubelet_change=None, driver=driver, driver_source=None)
    return steps.NodeRun(spec, node, run)


def units(files=None, overrides=None, active=None):
    return UnitSnapshot(files or {}, overrides or {}, active or {}, {})


def missing(*paths):
    return dict((p, UnitFile(False, None, None)) for p in paths)


def test_a_dry_host_records_the_steps_a_live_one_applies_and_writes_nothing(tmp_path):
    target = str(tmp_path / 'unit.slice')
    planned = [WriteFile(target, '[Slice]\n', 0o644, 'unit.slice', None),
               ops.Operation('mkdir', str(tmp_path / 'cg'), cgroup='kubepods', depth=1),
               Systemctl(DriverOrigin('systemd', None), 'daemon-reload')]
    systemctl = FakeSystemctl()
    record = Record(['from the plan'])
    assert perform(planned, DryHost(systemctl), record) is False
    assert record.changes == ['create %s' % target, 'mkdir %s' % (tmp_path / 'cg'), 'systemctl daemon-reload']
    assert [f['item'] for f in record.found] == ['unit.slice', 'kubepods', 'systemd']
    assert record.diffs == [{'before_header': target, 'after_header': target, 'before': '', 'after': '[Slice]\n'}]
    assert record.applied == [] and record.warnings == ['from the plan']
    assert not os.path.exists(target) and not os.path.exists(str(tmp_path / 'cg')) and systemctl.calls == []


def test_a_live_host_applies_in_order_and_says_what_it_did(tmp_path):
    made = str(tmp_path / 'cg')
    host = LiveHost.__new__(LiveHost)
    DryHost.__init__(host, FakeSystemctl())
    record = Record()
    assert perform([ops.Operation('mkdir', made, cgroup='kubepods', depth=1),
                    ops.Operation('write', os.path.join(made, 'memory.max'), '1024', None, 'kubepods', 1),
                    Systemctl(DriverOrigin('systemd', None), 'daemon-reload')], host, record) is True
    assert os.path.isdir(made) and open(os.path.join(made, 'memory.max')).read() == '1024'
    assert record.applied == record.changes and host.reloaded is True


def test_a_step_for_what_is_gone_is_skipped_on_the_live_node_only(tmp_path):
    """systemd removed a stopped slice's directory; a kernel lacks swap.max: the live run skips, a dry run says."""
    gone = [ops.Operation('rmdir', str(tmp_path / 'gone'), cgroup='kube_reserved'),
            ops.Operation('write', str(tmp_path / 'memory.swap.max'), 'max', None, 'kube_reserved')]
    assert [o.skipped_when_gone for o in gone] == [True, True]
    assert ops.Operation('write', str(tmp_path / 'memory.max'), '1', None, 'x').skipped_when_gone is False
    live = LiveHost.__new__(LiveHost)
    DryHost.__init__(live, FakeSystemctl())
    record = Record()
    perform(gone, live, record)
    assert record.changes == []
    perform(gone, DryHost(FakeSystemctl()), record)
    assert len(record.changes) == 2


@pytest.mark.parametrize('source, field, said', [
    (None, 'cgroup_driver', 'systemctl start a.slice failed: Access denied'),
    ('/var/lib/kubelet/config.yaml (kubelet)', 'node', 'was detected from /var/lib/kubelet/config.yaml')])
def test_a_failed_systemctl_step_is_blamed_where_the_driver_came_from(source, field, said):
    host = LiveHost.__new__(LiveHost)
    DryHost.__init__(host, FakeSystemctl(failing=('start',)))
    record = Record()
    with pytest.raises(HostError) as failed:
        perform([Systemctl(DriverOrigin('systemd', source), 'start', 'a.slice')], host, record)
    assert str(failed.value).startswith(field + ': ') and said in str(failed.value)
    assert (failed.value.operation, failed.value.path) == ('systemctl start', 'a.slice')
    assert record.changes == ['systemctl start a.slice'] and record.applied == []


def test_systemd_showing_other_values_is_refused_live_and_drift_dry():
    step = ConfirmProperties('a.slice', {'MemoryMax': '1024'}, False, DriverOrigin('systemd', None))
    systemctl = FakeSystemctl({'MemoryMax': '2048'})
    record = Record()
    perform([step], DryHost(systemctl), record)
    assert record.found == [{'item': 'a.slice', 'check': 'MemoryMax', 'live': '2048', 'planned': '1024'}]
    assert 'MemoryMax=2048 (plan: 1024)' in record.warnings[0] and record.changes == []
    live = LiveHost.__new__(LiveHost)
    DryHost.__init__(live, systemctl)
    with pytest.raises(KubenodeError, match='another drop-in overrides them'):
        perform([step], live, Record())
    perform([ConfirmProperties('a.slice', {'MemoryMax': '2048'}, False, DriverOrigin('systemd', None))], live, record)
    assert len(record.found) == 1


def test_a_slice_rewritten_by_the_run_is_confirmed_only_after_systemd_reloaded():
    step = ConfirmProperties('a.slice', {'MemoryMax': '1024'}, True, DriverOrigin('systemd', None))
    systemctl = FakeSystemctl({'MemoryMax': '2048'})
    record = Record()
    perform([step], DryHost(systemctl), record)
    assert record.found == [] and systemctl.calls == []


def test_systemd_unit_steps_write_what_differs_remove_what_overrides_reload_and_start(tmp_path):
    run = node_run(tmp_path)
    unit_path = os.path.join(run.unit_dir, 'system-reserved.slice')
    override = '/etc/systemd/system.control/system-reserved.slice.d/50-MemoryMax.conf'
    snapshot = units(missing(*run.persistence_paths().values(), unit_path),
                     {'system-reserved.slice': [(override, 'MemoryMax', '2048')]}, {'system-reserved.slice': False})
    planned = steps.unit_steps(run, snapshot, [])
    assert [type(s).__name__ for s in planned.steps] == [
        'WriteFile', 'RemoveFile', 'Systemctl', 'Systemctl', 'ConfirmProperties']
    assert [s.args for s in planned.steps if isinstance(s, Systemctl)] == [
        ('daemon-reload',), ('start', 'system-reserved.slice')]
    assert planned.steps[1].path == override and planned.steps[-1].after_reload is True


def test_a_node_that_matches_needs_no_unit_step_but_the_confirmation(tmp_path):
    run = node_run(tmp_path)
    unit_path = os.path.join(run.unit_dir, 'system-reserved.slice')
    content = steps.systemd.render_slice('system_reserved', SLICE, {'MemoryMax': '1073741824'})
    files = dict(missing(*run.persistence_paths().values()), **{unit_path: UnitFile(True, None, content.strip())})
    planned = steps.unit_steps(run, units(files, {'system-reserved.slice': [
        ('/x/50-MemoryMax.conf', 'MemoryMax', '1073741824')]}, {'system-reserved.slice': True}), [])
    assert [type(s).__name__ for s in planned.steps] == ['ConfirmProperties']
    assert planned.steps[0].after_reload is False


def test_a_slice_the_collection_makes_is_up_before_any_service_starts():
    """Issue 77: removing Before=slices.target passed the whole suite. Services start after basic.target, and
    basic.target after slices.target: a slice ordered before slices.target has its limits at boot before kubelet
    starts and checks its kubeReservedCgroup. systemd's own slices (system.slice) get a drop-in without [Unit]."""
    lines = steps.systemd.render_slice('system_reserved', SLICE, {'MemoryMax': '1073741824'}).splitlines()
    assert lines[1:4] == ['[Unit]', 'Description=kubenode system-reserved cgroup (/system.slice/system-reserved.slice)',
                          'Before=slices.target']
    assert lines[lines.index('[Slice]'):] == ['[Slice]', 'MemoryMax=1073741824']
    shipped = steps.systemd.render_slice('system_reserved', SHIPPED, {'MemoryMax': '1073741824'}).splitlines()
    assert '[Unit]' not in shipped and 'Before=slices.target' not in shipped


def test_the_systemd_driver_refuses_a_node_without_systemd(tmp_path):
    run = node_run(tmp_path, running=False)
    with pytest.raises(KubenodeError, match='needs systemd as PID 1') as refused:
        steps.unit_steps(run, units(missing(*run.persistence_paths().values())), [])
    assert refused.value.field == 'cgroup_driver' and str(refused.value).endswith('(/proc/1/comm) (got "systemd")')


def test_under_a_root_without_systemd_the_units_are_written_and_no_systemd_is_asked(tmp_path):
    """An image or a fake node (node_root, PID 1 not systemd): the slice units and the boot persistence are written
    for the node's systemd to read when it boots; nothing reloads, starts or confirms, and the run says so."""
    run = node_run(tmp_path, running=False, persist=True, node_root=str(tmp_path))
    paths = list(run.persistence_paths().values()) + [os.path.join(run.unit_dir, 'system-reserved.slice')]
    planned = steps.unit_steps(run, units(missing(*paths), {'system-reserved.slice': []}), [])
    assert [type(s).__name__ for s in planned.steps] == ['WriteFile'] * 4 + ['MakeLink']
    assert planned.steps[0].path == os.path.join(run.unit_dir, 'system-reserved.slice')
    assert any('systemd is not PID 1 under node_root %s' % tmp_path in w for w in planned.warnings)
    assert not any('nothing will put these cgroups back' in w for w in planned.warnings)
    assert steps.closing_steps(run, planned.persistence) == []
    assert ('systemd_unit_dir', run.unit_dir) in steps.write_targets(run)


def test_persistence_is_written_linked_and_restarted_once_then_left(tmp_path):
    run = node_run(tmp_path, driver='cgroupfs', persist=True)
    files = run.persistence_paths()
    planned, persistence, warnings = steps.persistence_steps(run, units(missing(*files.values())), [])
    assert [type(s).__name__ for s in planned] == ['WriteFile', 'WriteFile', 'WriteFile', 'MakeLink']
    assert persistence['changed'] is True and warnings == []
    assert [s.args for s in steps.closing_steps(run, persistence)] == [('restart', 'kubenode-cgroups.service')]
    written = dict((s.path, UnitFile(True, None, s.content)) for s in planned if isinstance(s, WriteFile))
    written[files['wants_link']] = UnitFile(True, files['unit'], None)
    again, persistence, _w = steps.persistence_steps(run, units(written), [])
    assert again == [] and persistence['changed'] is False and steps.closing_steps(run, persistence) == []


def test_without_systemd_nothing_persists_and_the_run_says_so(tmp_path):
    run = node_run(tmp_path, driver='cgroupfs', persist=True, running=False)
    planned, persistence, warnings = steps.persistence_steps(run, units(), [])
    assert planned == [] and persistence is None and 'nothing will put these cgroups back' in warnings[0]


def test_absent_stops_removes_then_rmdirs_children_first_and_keeps_shipped_slices(tmp_path):
    child = SLICE._replace(systemd_unit='kube-reserved.slice', systemd_path='/system.slice/system-reserved.slice/kube.slice')
    run = node_run(tmp_path, entries=(('system_reserved', SLICE), ('kube_reserved', child), ('shipped', SHIPPED)))
    unit_files = dict((os.path.join(run.unit_dir, e.systemd_unit), UnitFile(True, None, 'x'))
                      for e in (SLICE, child))
    shipped_dropin = os.path.join(run.unit_dir, 'system.slice.d', '50-kubenode-cgroups.conf')
    unit_files[shipped_dropin] = UnitFile(True, None, 'y')
    snapshot = units(dict(unit_files, **missing(*run.persistence_paths().values())),
                     dict((u, []) for u in ('system-reserved.slice', 'kube-reserved.slice', 'system.slice')))
    kernel = Obj(isdir=lambda path: True)
    planned, services = steps.absent_steps(run, snapshot, kernel)
    said = [s.describe() for s in planned]
    root = run.root
    assert said == [
        'remove %s' % shipped_dropin,
        'systemctl stop kube-reserved.slice', 'remove %s/kube-reserved.slice' % run.unit_dir,
        'rmdir %s/system.slice/system-reserved.slice/kube.slice' % root,
        'systemctl stop system-reserved.slice', 'remove %s/system-reserved.slice' % run.unit_dir,
        'rmdir %s/system.slice/system-reserved.slice' % root,
        'systemctl daemon-reload'] and services == []


def test_a_busy_cgroup_is_refused_before_any_step(tmp_path):
    run = node_run(tmp_path, driver='cgroupfs')
    busy = tmp_path / 'cgroup' / 'system-reserved' / 'child'
    busy.mkdir(parents=True)
    (busy / 'cgroup.procs').write_text(u'42\n')
    with pytest.raises(KubenodeError, match='processes are still inside') as refused:
        steps.busy_cgroup(run, 'system_reserved')
    assert refused.value.field == 'state'


def test_the_drivers_differ_only_through_their_strategy():
    cgroupfs, systemd_driver = DRIVERS['cgroupfs'], DRIVERS['systemd']
    assert cgroupfs.path_for(SLICE) == '/system-reserved' and systemd_driver.path_for(SLICE) == SLICE.systemd_path
    assert (cgroupfs.needs_systemd, systemd_driver.needs_systemd) == (False, True)
    assert cgroupfs.keeps_directories(SHIPPED) is False and systemd_driver.keeps_directories(SHIPPED) is True
    assert systemd_driver.kernel_options('v2')['create_dirs'] is False and cgroupfs.kernel_options('v2') == {}


@pytest.mark.parametrize('name', STEPS_LAYER)
def test_no_code_of_the_steps_layer_asks_if_it_is_dry_or_which_driver_it_has(name):
    """What differs between a live and a dry run is the host; between drivers, the strategy object."""
    with open(os.path.join(RUN_DIR, name)) as handle:
        tree = ast.parse(handle.read())
    asked = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ('dry', 'check_mode', 'comparing'):
            asked.append('.%s' % node.attr)
        if isinstance(node, ast.Compare):
            for side in [node.left] + list(node.comparators):
                if isinstance(side, ast.Constant) and side.value in ('systemd', 'cgroupfs'):
                    asked.append('== %r' % side.value)
    assert asked == []


def test_the_cgroup_layout_is_read_once_and_never_changed():
    layout = CgroupLayout('hybrid', {'cpu': '/fake/cgroup/cpu'}, '/fake/cgroup/unified')
    with pytest.raises(AttributeError):
        layout.mode = 'v2'
    with pytest.raises(TypeError):
        layout.v1_hierarchies['memory'] = '/fake/elsewhere'
    assert (layout.is_v2, layout.file_version) == (False, 'v1')
    assert (CgroupLayout('v2').is_v2, CgroupLayout('v2').file_version) == (True, 'v2')


@pytest.mark.parametrize('entry, field', [
    ('no mapping', 'plan.cgroups.kube_reserved'),
    ({'cgroupfs_path': 'relative'}, 'plan.cgroups.kube_reserved.cgroupfs_path'),
    ({'cgroupfs_path': '/k', 'v2_files': ['memory.max']}, 'plan.cgroups.kube_reserved.v2_files'),
    ({'cgroupfs_path': '/k', 'systemd_properties': {'v2': 'MemoryMax=1'}},
     'plan.cgroups.kube_reserved.systemd_properties.v2')])
def test_a_plan_that_is_not_allocatable_infos_is_refused_naming_the_field(entry, field):
    """Checked where a plan handed back through an option enters: the run reads its cgroups unchecked."""
    with pytest.raises(KubenodeError) as refused:
        NodePlan.from_dict({'cgroup_driver': 'systemd', 'cgroups': {'kube_reserved': entry}})
    assert refused.value.field == field


def test_a_planned_cgroup_is_a_record_read_once_from_the_plan():
    planned = PlannedCgroup.from_entry('kube_reserved', {
        'cgroupfs_path': '/k', 'systemd_path': '/k.slice', 'systemd_unit': 'k.slice', 'v1_files': {'cpu.shares': '2'},
        'v2_files': {'cpu.weight': '1'}, 'systemd_properties': {'v1': {'CPUShares': '2'}, 'v2': {'CPUWeight': '1'}}})
    assert (dict(planned.files('hybrid')), dict(planned.files('v2'))) == ({'cpu.shares': '2'}, {'cpu.weight': '1'})
    assert dict(planned.properties('v1')) == {'CPUShares': '2'} and dict(planned.properties('v2')) == {'CPUWeight': '1'}
    with pytest.raises(TypeError):
        planned.v2_files['cpu.weight'] = '100'
    assert planned.at('/elsewhere').cgroupfs_path == '/elsewhere' and planned.cgroupfs_path == '/k'
    assert dict(planned.with_files({'memory.max': '1'}).files('v1')) == {'memory.max': '1'}
    assert planned.names_only() == PlannedCgroup('kube_reserved', '/k', '/k.slice', 'k.slice')


def test_each_step_says_what_it_does_and_what_it_mends(tmp_path):
    path = str(tmp_path / 'a.slice')
    update = WriteFile(path, 'new\n', 0o644, 'a.slice', 'old')
    assert (update.describe(), update.drift()) == ('update %s' % path, (path, 'differs', 'as planned'))
    assert update.diff()['before'] == 'old\n'
    removal = RemoveFile(path, 'a.slice', 'MemoryMax=1', reason='MemoryMax=1 overrides the plan', check='override x')
    assert removal.describe() == 'remove %s (MemoryMax=1 overrides the plan)' % path
    assert removal.drift() == ('override x', 'MemoryMax=1', 'absent')
    assert removal.diff() == {'before_header': path, 'after_header': path, 'before': 'MemoryMax=1\n', 'after': ''}
    assert RemoveFile(path, 'a.slice', None, is_link=True).diff() is None
    link = MakeLink('/units/u.service', path, 'boot persistence', 'u.service', None)
    assert (link.describe(), link.drift()) == ('enable u.service (link %s)' % path, (path, 'missing', '/units/u.service'))
    assert Systemctl(None, 'start', 'a.slice').item == 'a.slice' and Systemctl(None, 'daemon-reload').item == 'systemd'


def test_what_a_live_run_applied_is_said_in_the_past(tmp_path):
    host = LiveHost.__new__(LiveHost)
    DryHost.__init__(host, FakeSystemctl())
    removed, linked = tmp_path / 'gone.conf', str(tmp_path / 'wants' / 'u.service')
    removed.write_text(u'x')
    record = Record()
    perform([RemoveFile(str(removed), 'u', 'x'), MakeLink('/units/u.service', linked, 'boot persistence', 'u.service', None),
             Systemctl(DriverOrigin('systemd', None), 'start', 'a.slice')], host, record)
    assert record.applied == ['removed %s' % removed, 'linked %s' % linked, 'systemctl start a.slice']
    assert os.readlink(linked) == '/units/u.service' and not removed.exists()
    assert WriteFile('/p', 'x', 0o644, 'i', None).done() == 'wrote /p'


def test_systemd_not_answering_for_a_slice_is_an_error_of_the_driver():
    class Silent(FakeSystemctl):
        def __call__(self, *args):
            return 1, '', 'Failed to connect to bus'
    with pytest.raises(KubenodeError) as failed:
        perform([ConfirmProperties('a.slice', {'MemoryMax': '1'}, False, DriverOrigin('systemd', None))],
                DryHost(Silent()), Record())
    assert 'systemctl show a.slice failed' in str(failed.value) and failed.value.field == 'cgroup_driver'


HUGE = PlannedCgroup('kubepods', '/kubepods', '/kubepods.slice', 'kubepods.slice',
                     v1_files={'memory.limit_in_bytes': '1', 'cpuset.cpus': '0-1', 'hugetlb.2MB.limit_in_bytes': '0'},
                     v2_files={'memory.max': '1', 'cpuset.cpus': '0-1', 'hugetlb.2MB.max': '0'})


@pytest.mark.parametrize('mode', ['v1', 'hybrid', 'v2'])
def test_the_systemd_driver_leaves_hugetlb_of_kubepods_to_kubelet_and_boots_only_what_systemd_cannot_express(mode):
    systemd_driver = DRIVERS['systemd']
    reserved = HUGE._replace(key='kube_reserved')
    live = dict(systemd_driver.kernel_entries([('kubepods', HUGE), ('kube_reserved', reserved)], mode, False))
    v2 = mode == 'v2'
    assert sorted(live['kubepods'].files(mode)) == (['cpuset.cpus', 'memory.max'] if v2 else
                                                    ['cpuset.cpus', 'memory.limit_in_bytes'])
    assert len(live['kube_reserved'].files(mode)) == 3
    boot = dict(systemd_driver.kernel_entries([('kube_reserved', reserved)], mode, True))
    assert sorted(boot['kube_reserved'].files(mode)) == (['hugetlb.2MB.max'] if v2 else
                                                         ['cpuset.cpus', 'hugetlb.2MB.limit_in_bytes'])
    assert systemd_driver.kernel_options(mode) == ({'create_dirs': False, 'enable_for': ('system_reserved', 'kube_reserved')}
                                                   if v2 else {'mkdir_hierarchies': ('cpuset', 'hugetlb')})


def test_units_and_drop_ins_are_written_readable_and_the_boot_script_executable(tmp_path):
    run = node_run(tmp_path, persist=True)
    unit = os.path.join(run.unit_dir, 'system-reserved.slice')
    planned = steps.unit_steps(run, units(missing(unit, *run.persistence_paths().values()), {'system-reserved.slice': []},
                                          {'system-reserved.slice': True}), [])
    modes = dict((s.path, s.mode) for s in planned.steps if isinstance(s, WriteFile))
    assert modes.pop(run.persistence_paths()['script']) == 0o755
    assert set(modes.values()) == {0o644} and unit in modes and len(modes) == 3


def test_a_link_is_removed_as_a_link_and_a_file_with_its_text(tmp_path):
    from ansible_collections.kubenode.cgroups.plugins.module_utils.run._drivers import remove_when_present
    snapshot = units({'/l': UnitFile(True, '/target', 'through the link'), '/f': UnitFile(True, None, 'text'),
                      '/gone': UnitFile(False, None, None)})
    link, = remove_when_present(snapshot, '/l', 'x')
    assert (link.is_link, link.before) == (True, None)
    regular, = remove_when_present(snapshot, '/f', 'x')
    assert (regular.is_link, regular.before) == (False, 'text')
    assert remove_when_present(snapshot, '/gone', 'x') == []


def test_a_shipped_slice_loses_only_the_overrides_the_plan_set_and_an_own_slice_all(tmp_path):
    run = node_run(tmp_path)
    overrides = [('/o/50-MemoryMax.conf', 'MemoryMax', '1'), ('/o/50-CPUWeight.conf', 'CPUWeight', '5')]
    snapshot = units(missing(os.path.join(run.unit_dir, 'system.slice.d', '50-kubenode-cgroups.conf'),
                             os.path.join(run.unit_dir, 'system-reserved.slice')),
                     {'system.slice': overrides, 'system-reserved.slice': overrides})
    shipped = DRIVERS['systemd'].unit_removal_steps(run, snapshot, SHIPPED)
    assert [s.path for s in shipped] == ['/o/50-MemoryMax.conf']
    own = DRIVERS['systemd'].unit_removal_steps(run, snapshot, SLICE)
    assert [s.path for s in own] == ['/o/50-MemoryMax.conf', '/o/50-CPUWeight.conf']


@pytest.mark.parametrize('mode, warned', [('v2', True), ('hybrid', False), ('v1', False)])
def test_the_cgroupfs_driver_warns_of_daemon_reload_on_a_systemd_v2_host(tmp_path, mode, warned):
    run = node_run(tmp_path, driver='cgroupfs')
    run.layout = CgroupLayout(mode, {} if mode == 'v2' else {'cpu': '/x'}, None)
    _steps, warnings, _placed, _pending = DRIVERS['cgroupfs'].unit_steps(run, units(), [])
    assert any('removes controllers no unit needs' in w for w in warnings) is warned


def test_only_a_run_that_writes_units_checks_the_unit_directory(tmp_path):
    assert ('systemd_unit_dir', str(tmp_path / 'units')) in steps.write_targets(node_run(tmp_path))
    assert [o for o, _d in steps.write_targets(node_run(tmp_path, driver='cgroupfs'))] == [
        'cgroupfs_path', 'generations_dir']
    assert [o for o, _d in steps.write_targets(node_run(tmp_path, driver='cgroupfs', persist=True))] == [
        'cgroupfs_path', 'generations_dir', 'systemd_unit_dir', 'persist_script']


def test_a_systemctl_step_mends_by_its_verb_and_a_kubelet_write_says_its_file():
    from ansible_collections.kubenode.cgroups.plugins.module_utils.run._steps import WriteKubeletConfig
    assert Systemctl(None, 'start', 'a.slice').drift() == ('systemctl start', 'needed', 'done')
    assert WriteKubeletConfig({'path': '/var/lib/kubelet/config.yaml'}, False).done() == 'wrote /var/lib/kubelet/config.yaml'


def test_systemd_showing_a_lower_value_than_planned_is_found_too():
    record = Record()
    perform([ConfirmProperties('a.slice', {'MemoryMax': '2048'}, False, DriverOrigin('systemd', None))],
            DryHost(FakeSystemctl({'MemoryMax': '1024'})), record)
    assert record.found == [{'item': 'a.slice', 'check': 'MemoryMax', 'live': '1024', 'planned': '2048'}]


def test_a_service_placed_in_the_kube_reserved_slice_gets_a_readable_drop_in(tmp_path):
    reserved = SLICE._replace(key='kube_reserved', systemd_unit='kube.slice', systemd_path='/kube.slice')
    run = node_run(tmp_path, entries=(('kube_reserved', reserved),))
    dropin = os.path.join(run.unit_dir, 'containerd.service.d', '50-kubenode-slice.conf')
    snapshot = units(missing(dropin, os.path.join(run.unit_dir, 'kube.slice')), {'kube.slice': []}, {'kube.slice': True})
    planned, _warnings, placed, _pending = DRIVERS['systemd'].unit_steps(run, snapshot, ['containerd.service'])
    assert placed == ['containerd.service']
    assert [(s.path, s.mode) for s in planned if s.path == dropin] == [(dropin, 0o644)]


# What make mutation found of run/_node_steps.py (docs/testing.md): each test below kills one or more of its
# surviving mutants.

def test_the_pre_flight_asks_room_of_every_target_but_the_cgroup_tree(tmp_path, monkeypatch):
    asked = []
    monkeypatch.setattr(steps.preflight, 'writable_directory_problem', lambda path, room: asked.append((path, room)))
    run = node_run(tmp_path, persist=True)
    steps.refuse_unwritable(run)
    # cgroupfs is a kernel filesystem: it has no free space to run out of.
    assert asked == [(run.root, False), (str(tmp_path / 'generations'), True), (run.unit_dir, True),
                     (str(tmp_path / 'bin'), True)]
    monkeypatch.setattr(steps.preflight, 'writable_directory_problem',
                        lambda path, room: 'read-only' if path == run.unit_dir else None)
    with pytest.raises(KubenodeError) as error:
        steps.refuse_unwritable(run)
    assert (error.value.field, error.value.value) == ('systemd_unit_dir', run.unit_dir)
    assert str(error.value).startswith('systemd_unit_dir: read-only (got ')


def test_only_a_service_systemd_has_loaded_is_placed(tmp_path):
    run = node_run(tmp_path)
    run.spec.services = ['kubelet', 'containerd', 'crio', 'docker']
    states = {'kubelet.service': 'loaded', 'containerd.service': 'bad-setting', 'crio.service': 'not-found',
              'docker.service': 'error'}
    snapshot = UnitSnapshot({}, {}, {}, states)
    assert steps.installed_services(run, snapshot) == (
        ['kubelet.service'], ['containerd.service', 'crio.service', 'docker.service'])
    # Without systemd as PID 1 no service is placed, whatever a snapshot says.
    without = node_run(tmp_path, running=False)
    without.spec.services = ['kubelet']
    assert steps.installed_services(without, UnitSnapshot({}, {}, {}, {'kubelet.service': 'loaded'})) == (
        [], ['kubelet.service'])


def test_the_processes_a_unit_left_in_its_cgroup_are_those_but_its_main_one(tmp_path):
    run = node_run(tmp_path)
    group = tmp_path / 'cgroup' / 'system.slice' / 'containerd.service'
    group.mkdir(parents=True)
    (group / 'cgroup.procs').write_text('500\n1200\n900\n')
    fields = {'ControlGroup': '/system.slice/containerd.service', 'MainPID': '500'}
    assert restarts.processes_left_behind(steps.systemd_hierarchy(run), fields) is True
    assert restarts.processes_left_behind(steps.systemd_hierarchy(run), dict(fields, MainPID='0')) is True
    assert restarts.processes_left_behind(steps.systemd_hierarchy(run), {'MainPID': '500'}) is False  # systemd shows no cgroup: nothing held
    (group / 'cgroup.procs').write_text('500\n')
    assert restarts.processes_left_behind(steps.systemd_hierarchy(run), fields) is False  # the main process alone
    v1 = node_run(tmp_path)
    v1.layout = CgroupLayout('v1', {'memory': str(tmp_path / 'cgroup')}, str(tmp_path / 'cgroup'))
    assert restarts.processes_left_behind(steps.systemd_hierarchy(v1), fields) is False  # no name=systemd hierarchy to read


def test_a_service_is_watched_for_a_restart_only_where_its_drop_in_is_and_it_is_installed(tmp_path, monkeypatch):
    reserved = SLICE._replace(key='kube_reserved', systemd_unit='kube.slice', systemd_path='/kube.slice')
    run = node_run(tmp_path, entries=(('kube_reserved', reserved),))
    run.spec.services = ['containerd', 'crio']
    watched = []
    monkeypatch.setattr(steps.restarts, 'read_units', lambda systemctl, units: watched.append(units) or {})
    done = steps.Done(Record())
    done.units = steps.UnitPlan([], [], [], ['crio.service'], None)
    # Neither has its drop-in yet: nothing to watch, systemctl is not asked.
    assert steps.find_restarts(run, DryHost(FakeSystemctl()), done) == [] and watched == []
    for service in ('containerd.service', 'crio.service'):
        dropin = os.path.join(run.unit_dir, service + '.d', '50-kubenode-slice.conf')
        os.makedirs(os.path.dirname(dropin))
        with open(dropin, 'w') as handle:
            handle.write('[Service]\nSlice=kube.slice\n')
    steps.find_restarts(run, DryHost(FakeSystemctl()), done)
    assert watched == [['containerd.service']]  # crio is not installed: its drop-in is a leftover


def test_the_kubelet_configuration_is_backed_up_only_when_asked(tmp_path):
    run = node_run(tmp_path)
    run.kubelet_change = {'changed': True, 'path': str(tmp_path / 'config.yaml')}
    written = steps.closing_steps(run, None)
    assert [type(s).__name__ for s in written] == ['WriteKubeletConfig'] and written[0].backup is False
    run.spec.kubelet_config_option = lambda name, fallback=None: True if name == 'backup' else fallback
    assert steps.closing_steps(run, None)[0].backup is True


@pytest.mark.parametrize('acted, reads', [(False, 1), (True, 2)])
def test_the_kernel_is_read_again_only_when_the_unit_steps_acted(tmp_path, monkeypatch, acted, reads):
    run = node_run(tmp_path)
    kernels = []
    monkeypatch.setattr(steps, 'read_kernel', lambda run: kernels.append('kernel %d' % len(kernels)) or kernels[-1])
    planned_from = []
    monkeypatch.setattr(steps, 'kernel_steps', lambda run, kernel, boot_script=False: planned_from.append(
        (kernel, boot_script)) or [])
    monkeypatch.setattr(steps, 'read_unit_side', lambda run, systemctl: None)
    monkeypatch.setattr(steps, 'unit_steps', lambda run, snapshot, boot: steps.UnitPlan(['unit step'], [], [], [], None))
    performed = []
    monkeypatch.setattr(steps, 'perform', lambda todo, host, record: performed.append(list(todo)) or (
        acted and todo == ['unit step']))
    steps.present(run, DryHost(FakeSystemctl()), steps.Done(Record()), check_writes=False)
    assert len(kernels) == reads
    # The kernel steps performed are planned from the last reading.
    assert [k for k, boot in planned_from if not boot][-1] == kernels[-1] and performed == [['unit step'], []]
