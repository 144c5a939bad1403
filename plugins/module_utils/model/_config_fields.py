# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The KubeletConfiguration keys each kubelet release knows.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Pure. Kubelet decodes its configuration file strictly first (DecodeKubeletConfiguration); a key its release does not
know fails that, and kubelet then decodes the file leniently, logs "using lenient decoding as strict decoding
failed" and ignores the key: it starts, without what the key said. The table is read from each judged release's own
k8s.io/kubelet module (config/v1beta1 KubeletConfiguration's json names) by tests/kubelet/update_config_fields.py:
one line per key, the first and the last release that knows it ("-": still known). Releases older than the oldest
judged are not known here.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

from typing import Any, Mapping

# The releases the table was read from (tests/kubelet/update_config_fields.py).
JUDGED = (29, 38)

_WINDOWS = """
address 29 -
allowedUnsafeSysctls 29 -
apiVersion 29 -
authentication 29 -
authorization 29 -
cgroupDriver 29 -
cgroupRoot 29 -
cgroupsPerQOS 29 -
clientCertificateKeyAlgorithm 38 -
clusterDNS 29 -
clusterDomain 29 -
configMapAndSecretChangeDetectionStrategy 29 -
containerLogMaxFiles 29 -
containerLogMaxSize 29 -
containerLogMaxWorkers 30 -
containerLogMonitorInterval 30 -
containerRuntimeEndpoint 29 -
contentType 29 -
cpuCFSQuota 29 -
cpuCFSQuotaPeriod 29 -
cpuManagerPolicy 29 -
cpuManagerPolicyOptions 29 -
cpuManagerReconcilePeriod 29 -
crashLoopBackOff 32 -
defaultPodSysctls 37 -
enableContentionProfiling 29 -
enableControllerAttachDetach 29 -
enableDebugFlagsHandler 29 -
enableDebuggingHandlers 29 -
enableProfilingHandler 29 -
enableServer 29 -
enableSystemLogHandler 29 -
enableSystemLogQuery 29 -
enforceNodeAllocatable 29 -
eventBurst 29 -
eventRecordQPS 29 -
evictionHard 29 -
evictionMaxPodGracePeriod 29 -
evictionMinimumReclaim 29 -
evictionPressureTransitionPeriod 29 -
evictionSoft 29 -
evictionSoftGracePeriod 29 -
failCgroupV1 31 -
failSwapOn 29 -
featureGates 29 -
fileCheckFrequency 29 -
hairpinMode 29 -
healthzBindAddress 29 -
healthzPort 29 -
httpCheckFrequency 29 -
imageGCHighThresholdPercent 29 -
imageGCLowThresholdPercent 29 -
imageMaximumGCAge 29 -
imageMinimumGCAge 29 -
imagePullCredentialsVerificationPolicy 33 -
imageServiceEndpoint 29 -
iptablesDropBit 29 -
iptablesMasqueradeBit 29 -
kernelMemcgNotification 29 -
kind 29 -
kubeAPIBurst 29 -
kubeAPIQPS 29 -
kubeReserved 29 -
kubeReservedCgroup 29 -
kubeletCgroups 29 -
localStorageCapacityIsolation 29 -
logging 29 -
makeIPTablesUtilChains 29 -
maxOpenFiles 29 -
maxParallelImagePulls 29 -
maxPods 29 -
memoryManagerPolicy 29 -
memoryReservationPolicy 36 -
memorySwap 29 -
memoryThrottlingFactor 29 -
mergeDefaultEvictionSettings 33 -
nodeLeaseDurationSeconds 29 -
nodeStatusMaxImages 29 -
nodeStatusReportFrequency 29 -
nodeStatusUpdateFrequency 29 -
oomScoreAdj 29 -
podCIDR 29 -
podLogsDir 30 -
podPidsLimit 29 -
podsPerCore 29 -
port 29 -
preloadedImagesVerificationAllowlist 33 -
protectKernelDefaults 29 -
providerID 29 -
qosReserved 29 -
readOnlyPort 29 -
registerNode 29 -
registerWithTaints 29 -
registryBurst 29 -
registryPullQPS 29 -
reservedMemory 29 -
reservedSystemCPUs 29 -
resolvConf 29 -
rotateCertificates 29 -
runOnce 29 -
runtimeRequestTimeout 29 -
seccompDefault 29 -
serializeImagePulls 29 -
serverCertificateKeyAlgorithm 38 -
serverTLSBootstrap 29 -
showHiddenMetricsForVersion 29 -
shutdownGracePeriod 29 -
shutdownGracePeriodByPodPriority 29 -
shutdownGracePeriodCriticalPods 29 -
singleProcessOOMKill 32 -
staticPodPath 29 -
staticPodURL 29 -
staticPodURLHeader 29 -
streamingConnectionIdleTimeout 29 -
syncFrequency 29 -
systemCgroups 29 -
systemReserved 29 -
systemReservedCgroup 29 -
tlsCertFile 29 -
tlsCipherSuites 29 -
tlsCurvePreferences 36 -
tlsMinVersion 29 -
tlsPrivateKeyFile 29 -
topologyManagerPolicy 29 -
topologyManagerPolicyOptions 29 -
topologyManagerScope 29 -
tracing 29 -
userNamespaces 33 -
volumePluginDir 29 -
volumeStatsAggPeriod 29 -
"""


def _windows() -> dict[str, tuple[int, int | None]]:
    windows = {}
    for line in _WINDOWS.splitlines():
        if line:
            name, first, last = line.split()
            windows[name] = (int(first), None if last == '-' else int(last))
    return windows


WINDOWS = _windows()


def keys_ignored_by(config: Mapping[str, Any] | None, minor: int) -> list[str] | None:
    """The top-level keys of config (the merged kubelet configuration) that kubelet 1.<minor> does not know, so
    ignores; None for a release the table was not read for."""
    if not JUDGED[0] <= minor <= JUDGED[1]:
        return None
    ignored = []
    for name in sorted(config or {}):
        window = WINDOWS.get(name)
        if window is None or minor < window[0] or (window[1] is not None and minor > window[1]):
            ignored.append(name)
    return ignored
