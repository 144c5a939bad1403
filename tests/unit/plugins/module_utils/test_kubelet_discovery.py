# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _kubelet_discovery as discovery
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_paths import KUBEADM_CONFIG, KUBESPRAY_CONFIG

# systemctl show kubelet.service on a kubeadm node (systemd 252): 10-kubeadm.conf resets ExecStart=.
KUBEADM_SHOW = (
    'LoadState=loaded\n'
    'ExecStart={ path=/usr/bin/kubelet ; argv[]=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS '
    '$KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS ; ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; '
    'code=(null) ; status=0/0 }\n'
    'Environment="KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf '
    '--kubeconfig=/etc/kubernetes/kubelet.conf" KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml\n'
    'EnvironmentFiles=/var/lib/kubelet/kubeadm-flags.env (ignore_errors=yes)\n'
    'EnvironmentFiles=/etc/default/kubelet (ignore_errors=yes)\n'
)
KUBEADM_FLAGS = 'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock"\n'


def test_kubeadm_unit_with_its_environment_files():
    files = {'/var/lib/kubelet/kubeadm-flags.env': KUBEADM_FLAGS,
             '/etc/default/kubelet': '# extra flags\nKUBELET_EXTRA_ARGS=--config-dir=/etc/kubernetes/kubelet.conf.d\n'}
    argv = discovery.unit_command(discovery.parse_unit(KUBEADM_SHOW), files.get)
    assert argv[0] == '/usr/bin/kubelet'
    assert '--kubeconfig=/etc/kubernetes/kubelet.conf' in argv
    assert discovery.kubelet_flags(argv[1:]) == {'config': '/var/lib/kubelet/config.yaml',
                                                 'config_dir': '/etc/kubernetes/kubelet.conf.d'}


def test_an_environment_file_overrides_environment_and_the_last_flag_wins():
    files = {'/var/lib/kubelet/kubeadm-flags.env': 'KUBELET_CONFIG_ARGS="--config /etc/k/one.yaml --config=/etc/k/two.yaml"'}
    argv = discovery.unit_command(discovery.parse_unit(KUBEADM_SHOW), files.get)
    assert discovery.kubelet_flags(argv[1:])['config'] == '/etc/k/two.yaml'


def test_kubespray_unit_reads_kubelet_env():
    show = ('LoadState=loaded\nExecStart={ path=/usr/local/bin/kubelet ; argv[]=/usr/local/bin/kubelet '
            '$KUBE_LOGTOSTDERR $KUBE_LOG_LEVEL $KUBELET_API_SERVER $KUBELET_ADDRESS $KUBELET_PORT $KUBELET_HOSTNAME '
            '$KUBELET_ARGS $DOCKER_SOCKET $KUBELET_NETWORK_PLUGIN $KUBELET_VOLUME_PLUGIN $KUBELET_CLOUDPROVIDER ; '
            'ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }\n'
            'Environment=\nEnvironmentFiles=/etc/kubernetes/kubelet.env (ignore_errors=yes)\n')
    env = ('KUBE_LOGTOSTDERR="--logtostderr=true"\nKUBE_LOG_LEVEL="--v=2"\n'
           'KUBELET_ARGS="--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf \\\n'
           '--config=/etc/kubernetes/kubelet-config.yaml --kubeconfig=/etc/kubernetes/kubelet.conf"\n')
    argv = discovery.unit_command(discovery.parse_unit(show), {'/etc/kubernetes/kubelet.env': env}.get)
    assert discovery.kubelet_flags(argv[1:]) == {'config': '/etc/kubernetes/kubelet-config.yaml', 'config_dir': None}


def test_a_unit_that_is_not_loaded_says_nothing():
    assert discovery.unit_command(discovery.parse_unit('LoadState=not-found\nExecStart=\n'), {}.get) is None


def test_braced_variables_stay_one_word():
    assert discovery.expand_command(['kubelet', '--config=${CONF}', '$ARGS', '${ARGS}'],
                                    {'CONF': '/a b.yaml', 'ARGS': '--x --y'}) == [
        'kubelet', '--config=/a b.yaml', '--x', '--y', '--x --y']


def test_running_process_is_found_when_there_is_no_unit(tmp_path):
    (tmp_path / '1').mkdir()
    (tmp_path / '1' / 'comm').write_text('systemd\n')
    (tmp_path / '812').mkdir()
    (tmp_path / '812' / 'comm').write_text('kubelet\n')
    (tmp_path / '812' / 'cmdline').write_text('/usr/bin/kubelet\0--config\0/srv/kubelet.yaml\0')
    found = discovery.discover(str(tmp_path), lambda *args: (0, 'LoadState=not-found\n', ''))
    assert found == {'config': '/srv/kubelet.yaml', 'config_dir': None, 'source': 'the running kubelet (pid 812)',
                     'binary': '/usr/bin/kubelet', 'extra_args_file': None}


def unit_found(config='/var/lib/kubelet/config.yaml', config_dir=None):
    return {'source': 'the kubelet.service unit', 'config': config, 'config_dir': config_dir}


# kubeadm's unit layout as its packages install it (kubelet.service and 10-kubeadm.conf).
KUBEADM_UNIT = '[Unit]\nDescription=kubelet\n\n[Service]\nExecStart=/usr/bin/kubelet\nRestart=always\n'
KUBEADM_DROPIN = (
    '# Note: This dropin only works with kubeadm and kubelet v1.11+\n[Service]\n'
    'Environment="KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf '
    '--kubeconfig=/etc/kubernetes/kubelet.conf"\n'
    'Environment="KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml"\n'
    'EnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env\nEnvironmentFile=-/etc/default/kubelet\n'
    'ExecStart=\nExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS '
    '$KUBELET_EXTRA_ARGS\n')


def lay_out(root, files):
    for path, text in files.items():
        target = root / path.lstrip('/')
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def test_without_systemd_the_unit_files_under_the_root_say_where_kubelet_reads(tmp_path):
    """Issue 51: a fake kubeadm node (init as PID 1) under a root: its unit, 10-kubeadm.conf and kubeadm-flags.env
    were not read, though the README said so."""
    flags = 'KUBELET_KUBEADM_ARGS="--config-dir=/etc/kubernetes/kubelet.conf.d"\n'
    lay_out(tmp_path, {'/lib/systemd/system/kubelet.service': KUBEADM_UNIT,
                       '/usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf': KUBEADM_DROPIN,
                       '/var/lib/kubelet/kubeadm-flags.env': flags, '/proc/1/comm': 'init\n'})
    found = discovery.discover(str(tmp_path / 'proc'), None, root=str(tmp_path))
    assert found == {'source': 'the kubelet.service unit file under %s' % tmp_path,
                     'config': str(tmp_path / 'var/lib/kubelet/config.yaml'),
                     'config_dir': str(tmp_path / 'etc/kubernetes/kubelet.conf.d'),
                     'binary': str(tmp_path / 'usr/bin/kubelet'),
                     # kubeadm's drop-in takes $KUBELET_EXTRA_ARGS from the operator's file
                     'extra_args_file': str(tmp_path / 'etc/default/kubelet')}
    # A drop-in of the same name in /etc hides the packaged one; a later drop-in's ExecStart= resets the command.
    mine = '[Service]\nExecStart=\nExecStart=-/opt/bin/kubelet --config /srv/k.yaml\n'
    lay_out(tmp_path, {
        '/etc/systemd/system/kubelet.service.d/10-kubeadm.conf':
        KUBEADM_DROPIN.replace('/var/lib/kubelet/config.yaml', '/etc/kubelet.yaml'),
        '/etc/systemd/system/kubelet.service.d/20-mine.conf': mine})
    found = discovery.discover(str(tmp_path / 'proc'), None, root=str(tmp_path))
    assert found['config'] == str(tmp_path / 'srv/k.yaml') and found['binary'] == str(tmp_path / 'opt/bin/kubelet')
    (tmp_path / 'etc/systemd/system/kubelet.service.d/20-mine.conf').unlink()
    assert discovery.discover(str(tmp_path / 'proc'), None, root=str(tmp_path))['config'] == str(tmp_path / 'etc/kubelet.yaml')
    # With systemd running, systemctl answers and the files are not read; with no unit file, nothing is found.
    assert discovery.discover(str(tmp_path / 'proc'), lambda *args: (0, 'LoadState=not-found\n', ''),
                              root=str(tmp_path))['source'] is None
    assert discovery.discover(str(tmp_path / 'proc'), None, root=str(tmp_path / 'nothing'))['source'] is None


def test_choice_prefers_a_dropin_when_kubelet_has_a_config_dir():
    choice = discovery.choose(unit_found(config_dir='/etc/kubernetes/kubelet.conf.d'))
    assert choice['dropin'] is True and choice['path'] == '/var/lib/kubelet/config.yaml'
    assert choice['dropin_dir'] == '/etc/kubernetes/kubelet.conf.d'
    assert 'the --config of the kubelet.service unit' in choice['reason'] and '--config-dir' in choice['reason']
    assert discovery.choose(unit_found(config_dir='/etc/k.d'), dropin=False)['dropin'] is False


@pytest.mark.parametrize('options, field', [
    ({'path': '/var/lib/kubelet/config.yaml'}, 'kubelet_config_path'),
    ({'dropin': True}, 'kubelet_config_dropin'),
])
def test_options_that_kubelet_would_never_read_are_refused(options, field):
    with pytest.raises(KubenodeError) as error:
        discovery.choose(unit_found(config='/etc/kubernetes/kubelet-config.yaml'), option_prefix='kubelet_config.',
                         **options)
    assert error.value.field == 'kubelet_config.' + field
    assert 'kubelet.service' in str(error.value)


def test_a_dropin_dir_kubelet_does_not_read_is_refused():
    with pytest.raises(KubenodeError) as error:
        discovery.choose(unit_found(config_dir='/etc/kubernetes/kubelet.conf.d'), dropin_dir='/etc/other.d')
    assert error.value.field == 'kubelet_dropin_dir' and '--config-dir=/etc/kubernetes/kubelet.conf.d' in str(error.value)


def test_a_kubelet_without_config_is_refused():
    with pytest.raises(KubenodeError) as error:
        discovery.choose(unit_found(config=None))
    assert 'without --config' in str(error.value)


def test_without_kubelet_the_existing_known_file_wins_then_kubeadms_with_a_warning():
    nothing = {'source': None, 'config': None, 'config_dir': None}
    spray = discovery.choose(nothing, exists=lambda path: path == KUBESPRAY_CONFIG)
    assert spray['path'] == KUBESPRAY_CONFIG and 'kubespray layout' in spray['reason']
    assert spray['warnings'] == [] and spray['dropin'] is False
    fresh = discovery.choose(nothing, exists=lambda path: False)
    assert fresh['path'] == KUBEADM_CONFIG and 'no kubelet yet' in fresh['warnings'][0]
    assert discovery.choose(nothing, path='/x/c.yaml', exists=lambda path: False)['path'] == '/x/c.yaml'


def kubeadm_found(config_dir=None, root=''):
    return {'source': 'the kubelet.service unit', 'config': root + '/var/lib/kubelet/config.yaml',
            'config_dir': config_dir, 'extra_args_file': root + '/etc/default/kubelet'}


def test_a_kubeadm_node_asked_for_a_dropin_gets_its_config_dir_where_kubeadm_never_writes():
    """Issue 52: kubeadm join and kubeadm upgrade node rewrite config.yaml (and kubeadm-flags.env); the operator's
    /etc/default/kubelet, whose KUBELET_EXTRA_ARGS kubeadm's drop-in passes to kubelet, they never write."""
    choice = discovery.choose(kubeadm_found(), dropin=True)
    assert choice['dropin'] is True and choice['dropin_dir'] == '/etc/kubernetes/kubelet.conf.d'
    assert choice['add_config_dir'] == {'file': '/etc/default/kubelet', 'dir': '/etc/kubernetes/kubelet.conf.d',
                                        'flag_dir': '/etc/kubernetes/kubelet.conf.d'}
    assert 'which KUBELET_EXTRA_ARGS in /etc/default/kubelet gives kubelet' in choice['reason']
    assert choice['warnings'] == []
    # under a root, the flag names the node's own path
    choice = discovery.choose(kubeadm_found(root='/mnt/n'), dropin=True, dropin_dir='/mnt/n/etc/kubelet.d',
                              root='/mnt/n')
    assert choice['add_config_dir'] == {'file': '/mnt/n/etc/default/kubelet', 'dir': '/mnt/n/etc/kubelet.d',
                                        'flag_dir': '/etc/kubelet.d'}
    # kubelet with a --config-dir already: nothing to add; a unit that passes no extra flags: refused as before
    assert discovery.choose(kubeadm_found('/etc/k.d'), dropin=True)['add_config_dir'] is None
    with pytest.raises(KubenodeError, match='starts kubelet without --config-dir'):
        discovery.choose(dict(kubeadm_found(), extra_args_file=None), dropin=True)


def test_a_kubeadm_node_whose_reservation_lives_only_in_config_yaml_is_named():
    choice = discovery.choose(kubeadm_found(), option_prefix='kubelet_config.')
    assert choice['dropin'] is False and choice['add_config_dir'] is None
    assert choice['warnings'] == [
        "the reservation lives only in /var/lib/kubelet/config.yaml, which kubeadm join and kubeadm upgrade node "
        "rewrite from the cluster's kubelet-config ConfigMap: set kubelet_config.kubelet_config_dropin to true to keep "
        "it in a drop-in that kubeadm never writes (/etc/default/kubelet gives kubelet its --config-dir)"]
    # kubespray's file, or a unit without kubeadm's extra flags: no such warning
    assert discovery.choose(dict(kubeadm_found(), extra_args_file=None))['warnings'] == []
    assert discovery.choose(dict(kubeadm_found(), config='/etc/kubernetes/kubelet-config.yaml'))['warnings'] == []


@pytest.mark.parametrize('before, after', [
    (None, 'KUBELET_EXTRA_ARGS=--config-dir=/d\n'),
    ('KUBELET_EXTRA_ARGS=\n', 'KUBELET_EXTRA_ARGS=--config-dir=/d\n'),
    ('# mine\nKUBELET_EXTRA_ARGS="--v=2 --node-labels=a=b"\n', '# mine\nKUBELET_EXTRA_ARGS="--v=2 --node-labels=a=b --config-dir=/d"\n'),
    ("KUBELET_EXTRA_ARGS='--v=2'", "KUBELET_EXTRA_ARGS='--v=2 --config-dir=/d'\n"),
    ('OTHER=1\n', 'OTHER=1\nKUBELET_EXTRA_ARGS=--config-dir=/d\n'),
])
def test_the_config_dir_is_added_to_the_extra_flags_as_systemd_reads_them(before, after):
    text = discovery.with_config_dir(before, '/d')
    assert text == after
    command = discovery.unit_command(discovery.parse_unit_files([KUBEADM_UNIT, KUBEADM_DROPIN]),
                                     lambda path: text if path == '/etc/default/kubelet' else None)
    assert discovery.kubelet_flags(command[1:])['config_dir'] == '/d'
