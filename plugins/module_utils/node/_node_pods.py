# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The pods bound to a node, for kubelet's admission at its restart (_admission): the static pods kubelet reads from
its staticPodPath (as its file source reads them), and the pods the operator gives from the API server; whether each
runs now, from kubelet's pod log directories. Read only; every path under the node's root.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import os
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

try:
    import yaml
except ImportError:  # _kubelet_config reports a missing PyYAML
    yaml = None  # type: ignore[assignment]

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._pod_settings import pod_model
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_paths import under_root

if TYPE_CHECKING:  # the pod model is imported when the first pod is met (pod_model)
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model._admission import Candidate

POD_LOG_DIR = '/var/log/pods'
MIRROR_ANNOTATION = 'kubernetes.io/config.mirror'
SOURCE_ANNOTATION = 'kubernetes.io/config.source'
_TERMINAL_PHASES = ('Succeeded', 'Failed')


def node_name(proc_path: str) -> str | None:
    """The name kubelet gives the node without --hostname-override: the host name, lower case; None unknown."""
    try:
        with open(os.path.join(proc_path, 'sys', 'kernel', 'hostname')) as handle:
            return handle.read().strip().lower() or None
    except (IOError, OSError):
        return None


def pod_log_dirs(root: str) -> list[str] | None:
    """The names of kubelet's pod log directories (NAMESPACE_NAME_UID), one per pod it runs or ran; None when the
    node has no such directory (nothing known of what runs)."""
    path = under_root(root, POD_LOG_DIR)
    try:
        return sorted(os.listdir(path))
    except (IOError, OSError):
        return None


def _runs(namespace: str, name: str, log_dirs: Sequence[str] | None, static: bool) -> bool | None:
    """Whether kubelet keeps a log directory for the pod (a static pod's name ends in -NODE); None unknown."""
    if log_dirs is None:
        return None
    pattern = re.compile('^%s_%s%s_[^_]+$' % (re.escape(namespace), re.escape(name), '-[^_]+' if static else ''))
    return any(pattern.match(entry) for entry in log_dirs)


def static_pods(static_pod_path: str | None, root: str, proc_path: str, field: str = 'static_pod_path') -> list[Candidate]:
    """Candidates for the manifests kubelet's file source reads: the files of the directory not starting with a
    dot, in name order, each one Pod (limits copied into missing requests, as kubelet's defaulting does). A file
    that is not a pod is an error naming it: kubelet skips it, and the preview would guess."""
    if not static_pod_path:
        return []
    directory = under_root(root, static_pod_path)
    if not os.path.isdir(directory):
        return []
    node = node_name(proc_path)
    log_dirs = pod_log_dirs(root)
    found: list[Candidate] = []
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if name.startswith('.') or not os.path.isfile(path):
            continue
        with open(path) as handle:
            text = handle.read()
        try:
            document = yaml.load(text, Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader))
        except yaml.YAMLError as error:
            raise KubenodeError('is not valid YAML: %s' % str(error).replace('\n', ' '), field=field, value=path)
        if not isinstance(document, dict) or document.get('kind', 'Pod') != 'Pod':
            raise KubenodeError('is not a Pod manifest (kubelet would skip it)', field=field, value=path)
        model = pod_model()
        pod = model.pods.parse_pod(document, path, api_defaults=True)
        pod.namespace = pod.namespace or 'default'
        pod.annotations = dict(pod.annotations, **{SOURCE_ANNOTATION: 'file'})
        running = _runs(pod.namespace, pod.name, log_dirs, static=True)
        if node:
            pod.name = '%s-%s' % (pod.name, node)
        found.append(model.admission.Candidate(pod, 'file', running=running))
    return found


def _judged(metadata: Mapping[str, Any], status: Mapping[str, Any]) -> bool:
    """Whether the preview judges an API server's pod: not the mirror pod of a static one (kubelet admits the static
    pod itself), nor one that ended."""
    return MIRROR_ANNOTATION not in (metadata.get('annotations') or {}) and status.get('phase') not in _TERMINAL_PHASES


_RESIZE_CONDITIONS = ('PodResizePending', 'PodResizeInProgress')
_CONTAINER_STATUS_KEYS = ('name', 'resources', 'allocatedResources')


def _read_status(status: Any) -> dict[str, Any]:
    """The part of a pod's status the plan reads (parse_pod, api_pods): its phase, QoS class, in-place resize and
    the resources each container was given; not what moves on its own (conditions' times, restarts, container IDs)."""
    if not isinstance(status, dict):
        return {}
    kept: dict[str, Any] = dict((key, status[key]) for key in ('phase', 'qosClass', 'resize') if key in status)
    conditions = [dict((key, condition[key]) for key in ('type', 'status', 'reason', 'message') if key in condition)
                  for condition in status.get('conditions') or []
                  if isinstance(condition, dict) and condition.get('type') in _RESIZE_CONDITIONS]
    if conditions:
        kept['conditions'] = conditions
    for key in ('containerStatuses', 'initContainerStatuses'):
        if isinstance(status.get(key), list):
            kept[key] = [dict((name, container[name]) for name in _CONTAINER_STATUS_KEYS if name in container)
                         if isinstance(container, dict) else container for container in status[key]]
    return kept


def api_pods_for_plan(pods: Sequence[Any]) -> list[Any]:
    """The pods the API server bound to the node, as node_cgroups' pods option takes them for the plan: those api_pods
    judges (not the mirror pods of static ones, nor the ones that ended), each with only what the plan reads of it
    (metadata's names, uid, annotations and creation time, the spec, the status above). What changes on a running node
    without changing the plan (resourceVersion, managedFields, a condition's time, a container's restart) then leaves
    the options, and the receipt, as they were."""
    kept: list[Any] = []
    for data in pods:
        if not isinstance(data, dict):
            kept.append(data)  # api_pods names it, by its place in the list
            continue
        metadata: dict[str, Any] = data['metadata'] if isinstance(data.get('metadata'), dict) else {}
        status: dict[str, Any] = data['status'] if isinstance(data.get('status'), dict) else {}
        if not _judged(metadata, status):
            continue
        pod = dict((key, data[key]) for key in ('apiVersion', 'kind', 'spec') if key in data)
        pod['metadata'] = dict((key, metadata[key]) for key in ('name', 'namespace', 'uid', 'annotations',
                                                                'creationTimestamp') if key in metadata)
        if status:
            pod['status'] = _read_status(status)
        kept.append(pod)
    return kept


def api_pods(pods: Sequence[Any] | None, field: str = 'pods') -> list[Candidate]:
    """Candidates for the pods the operator read from the API server (kubernetes.core.k8s_info's resources): not
    the mirror pods of static ones (kubelet admits the static pod itself), nor the ones that ended."""
    found: list[Candidate] = []
    for index, data in enumerate(pods or []):
        item = '%s[%d]' % (field, index)
        if not isinstance(data, dict):
            raise KubenodeError('must be a Pod object', field=item, value=data)
        metadata = data.get('metadata') or {}
        status = data.get('status') or {}
        if not _judged(metadata, status):
            continue
        model = pod_model()
        pod = model.pods.parse_pod(data, item)
        pod.namespace = pod.namespace or 'default'
        phase = status.get('phase')
        found.append(model.admission.Candidate(pod, 'api', created=str(metadata.get('creationTimestamp') or ''),
                                               running=(phase == 'Running') if phase else None,
                                               uid=str(metadata.get('uid') or '')))
    return found
