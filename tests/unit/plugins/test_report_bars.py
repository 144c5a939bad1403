# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet report's bars of reserved against used (roles/node_audit/templates/sizing_bars.j2), rendered alone:
red wherever the verdict is under (whatever the reason, and the reason beside it), never the allocatable green,
and the rows of one resource on one scale (issue 35, point 5)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

import jinja2

TEMPLATES = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'roles', 'node_audit', 'templates')
MI = 1048576
RED = '#c62828'
ALLOCATABLE_GREEN = '#4f9d69'


def render(sizing):
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), undefined=jinja2.StrictUndefined)
    return environment.from_string("{% from 'sizing_bars.j2' import sizing_bars %}{{ sizing_bars(sizing) }}").render(
        sizing=sizing)


def row(reserved, used, recommended, verdict, reasons=()):
    return {'reserved': reserved, 'used': used, 'recommended': recommended, 'verdict': verdict, 'reasons': list(reasons)}


def bars(html):
    """{'system memory': {'fill': colour, 'used': width, 'reserved': width, 'recommended': x}, ...} of each svg row."""
    found = {}
    for label, body in re.findall(r'<svg [^>]*aria-label="([^"]+)">(.*?)</svg>', html, re.S):
        used = re.search(r'<rect x="0" y="3" width="([0-9.]+)" height="16" fill="([^"]+)">', body)
        reserved = re.search(r'<rect x="0.5" y="1.5" width="([0-9.]+)"', body)
        recommended = re.search(r'<line x1="([0-9.]+)"', body)
        found[label] = {'used': float(used.group(1)), 'fill': used.group(2), 'reserved': float(reserved.group(1)),
                        'recommended': float(recommended.group(1))}
    return found


SIZING = {'reserved': {
    # Under by its OOM kills though its highest use is below the reservation.
    'system': {'memory': row(512 * MI, 300 * MI, 700 * MI, 'under', ['2 OOM kill(s) in the window']),
               'cpu': row(500, 120, 500, 'ok')},
    'kube': {'memory': row(256 * MI, 100 * MI, 256 * MI, 'ok'),
             'cpu': row(100, 400, 600, 'under', ['used 400m of 100m'])},
}}


def test_an_under_row_is_red_with_its_reason_whatever_the_cause():
    html = render(SIZING)
    shown = bars(html)
    assert shown['system memory']['fill'] == RED
    assert shown['kube cpu']['fill'] == RED
    assert '2 OOM kill(s) in the window' in html and 'used 400m of 100m' in html


def test_a_row_not_under_has_its_own_fill_not_the_allocatable_green():
    shown = bars(render(SIZING))
    for label in ('system cpu', 'kube memory'):
        assert shown[label]['fill'] not in (RED, ALLOCATABLE_GREEN)


def test_the_rows_of_one_resource_share_a_scale():
    shown = bars(render(SIZING))
    # memory: the top is system's recommendation (700Mi), for both rows
    assert shown['system memory']['recommended'] == 600.0
    assert abs(shown['system memory']['reserved'] / shown['kube memory']['reserved'] - 2.0) < 0.01
    assert shown['kube memory']['used'] == round(600.0 * 100 / 700, 1)
    # cpu: its own scale, the top kube's recommendation (600m)
    assert shown['kube cpu']['recommended'] == 600.0
    assert shown['system cpu']['reserved'] == round(599.0 * 500 / 600, 1)


def test_an_unmeasured_side_says_so_without_a_bar():
    sizing = {'reserved': {'system': {'reasons': ['no process in system.slice']},
                           'kube': {'memory': row(256 * MI, None, 256 * MI, 'unmeasured')}}}
    html = render(sizing)
    assert 'unmeasured: no process in system.slice' in html
    assert list(bars(html)) == ['kube memory']
    assert bars(html)['kube memory']['used'] == 0.0
