"""api_pods_for_plan: what the role hands node_cgroups of the API server's pods - what the plan reads of them, and not
what a running node changes on its own (so that a re-run is answered by the receipt)."""
from __future__ import annotations

import copy

from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_pods import api_pods, api_pods_for_plan


def api_pod(name='web', restarts=0, version='1001', heartbeat='2026-11-29T10:00:00Z', phase='Running'):
    """A Pod as kubernetes.core's k8s lookup returns it, with what the API server and kubelet add."""
    return {
        'apiVersion': 'v1', 'kind': 'Pod',
        'metadata': {'name': name, 'namespace': 'shop', 'uid': 'uid-' + name, 'resourceVersion': version,
                     'creationTimestamp': '2026-11-29T09:00:00Z', 'annotations': {'team': 'a'},
                     'managedFields': [{'manager': 'kubelet', 'time': heartbeat}], 'generation': 1},
        'spec': {'nodeName': 'node1', 'priority': 1000,
                 'containers': [{'name': 'app', 'image': 'app:1',
                                 'resources': {'requests': {'cpu': '250m', 'memory': '128Mi'},
                                               'limits': {'memory': '256Mi'}}}],
                 'initContainers': [{'name': 'sidecar', 'restartPolicy': 'Always',
                                     'resources': {'requests': {'cpu': '100m', 'memory': '64Mi'}}}]},
        'status': {'phase': phase, 'qosClass': 'Burstable', 'podIP': '10.0.0.%d' % (restarts + 1),
                   'conditions': [{'type': 'Ready', 'status': 'True', 'lastTransitionTime': heartbeat},
                                  {'type': 'PodResizePending', 'status': 'True', 'reason': 'Deferred',
                                   'message': 'not enough memory', 'lastTransitionTime': heartbeat}],
                   'containerStatuses': [{'name': 'app', 'restartCount': restarts, 'ready': True,
                                          'containerID': 'containerd://%d' % restarts,
                                          'state': {'running': {'startedAt': heartbeat}},
                                          'resources': {'requests': {'cpu': '250m', 'memory': '128Mi'},
                                                        'limits': {'memory': '256Mi'}}}],
                   'initContainerStatuses': [{'name': 'sidecar', 'restartCount': restarts,
                                              'allocatedResources': {'cpu': '100m', 'memory': '64Mi'}}]},
    }


def judged(candidates):
    """What the admission preview reads of each candidate pod."""
    return [(c.pod.name, c.pod.namespace, c.pod.uid, c.pod.priority, c.pod.resize, c.pod.status_qos,
             sorted((key, sorted(requests.items()), limits and sorted(limits.items()))
                    for key, (requests, limits) in c.pod.status_resources.items()),
             [(x.name, sorted(x.requests.items()), sorted(x.limits.items())) for x in c.pod.containers],
             [(x.name, sorted(x.requests.items())) for x in c.pod.init_containers], c.source, c.running, c.created)
            for c in candidates]


def test_the_plan_judges_the_pods_it_is_handed_as_the_pods_the_api_server_gave():
    pods = [api_pod('web'), api_pod('db')]
    original = copy.deepcopy(pods)
    assert judged(api_pods(api_pods_for_plan(pods))) == judged(api_pods(pods))
    assert pods == original  # the pods read stay whole for the API gate
    assert judged(api_pods(pods))[0][4] == {'state': 'pending', 'reason': 'Deferred', 'message': 'not enough memory'}


def test_what_moves_on_a_running_node_leaves_the_pods_handed_over_as_they_were():
    before = api_pods_for_plan([api_pod()])
    after = api_pods_for_plan([api_pod(restarts=3, version='2002', heartbeat='2026-11-29T11:30:00Z')])
    assert after == before
    assert 'resourceVersion' not in before[0]['metadata'] and 'managedFields' not in before[0]['metadata']


def test_what_the_plan_reads_still_changes_them():
    before = api_pods_for_plan([api_pod()])
    resized = api_pod()
    resized['status']['containerStatuses'][0]['resources']['requests']['memory'] = '192Mi'
    assert api_pods_for_plan([resized]) != before
    assert api_pods_for_plan([api_pod(phase='Pending')]) != before


def test_mirror_pods_and_ended_pods_are_not_handed_over_as_api_pods_skips_them():
    mirror = api_pod('etcd-node1')
    mirror['metadata']['annotations']['kubernetes.io/config.mirror'] = 'abc'
    pods = [mirror, api_pod('done', phase='Succeeded'), api_pod('failed', phase='Failed'), api_pod('web')]
    assert [pod['metadata']['name'] for pod in api_pods_for_plan(pods)] == ['web']
    assert judged(api_pods(api_pods_for_plan(pods))) == judged(api_pods(pods))


def test_what_is_not_a_pod_is_left_for_api_pods_to_name():
    assert api_pods_for_plan(['web', api_pod('a')])[0] == 'web'
