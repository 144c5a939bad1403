# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The feature gate names kubelet knows, release by release.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

kubelet refuses to start on a name its gate registry does not hold ("unrecognized feature gate: X",
component-base featuregate.SetFromMap). Its registry is every gate of pkg/features/kube_features.go
(which relists the apiserver, apiextensions, controller-manager and zpages gates) plus the client-go,
logging and metrics gates registered beside them.

Each line below is "Name first last": the first and the last kubelet minor release that knows the
name ("-": still known in the newest release here). Sources:
- kube_features.go's versioned specs in the 1.33 and 1.36 development trees (first release);
- the documentation's feature gate tables of 1.27 and its removed-gates table of 1.29 (first and last);
- the documentation pages of the gates added in 1.36;
- the 1.37 changelog and skyhook-io/radar's 1.37 upgrade checks (the gates 1.37 removed, and added).
Where a source cannot pin a release the window is taken wide: a gate missing from a later tree is known
up to the release before that tree, a gate whose first release is not recorded is known from the start.
So a name is refused only where no source places it in that release.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import difflib
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError

if TYPE_CHECKING:  # _versions imports this module: the rules' type is only named here
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model._versions import KubeletRules

# A gate's name to the first and the last minor release that knows it (None: still known).
Windows = dict[str, tuple[int, 'int | None']]
# A minor release to its registry: a gate's name to (on by default, locked, the gates it needs, its stage).
Registries = dict[int, dict[str, tuple[bool, bool, tuple[str, ...], str]]]

_WINDOWS = """
AllAlpha 0 -
AllBeta 0 -
# pkg/features of the 1.36 development tree
AllowDNSOnlyNodeCSR 31 -
AllowInsecureKubeletCertificateSigningRequests 31 -
AllowOverwriteTerminationGracePeriodSeconds 32 37
AuthorizePodWebsocketUpgradeCreatePermission 35 -
CustomCPUCFSQuotaPeriod 12 -
CPUManagerPolicyAlphaOptions 23 -
CPUManagerPolicyBetaOptions 23 -
CPUManagerPolicyOptions 22 -
CSIMigrationPortworx 23 35
CSIServiceAccountTokenSecrets 35 -
CSIVolumeHealth 21 -
ChangeContainerStatusOnKubeletRestart 35 -
ClearingNominatedNodeNameAfterBinding 34 -
ClusterTrustBundle 27 -
ClusterTrustBundleProjection 29 -
ContainerCheckpoint 25 -
ContainerRestartRules 34 -
ContainerStopSignals 33 -
CrossNamespaceVolumeDataSource 26 -
DRAAdminAccess 32 -
DRAConsumableCapacity 34 -
DRADeviceBindingConditions 34 -
DRADeviceTaintRules 35 -
DRADeviceTaints 33 -
DRAExtendedResource 34 -
DRAPartitionableDevices 33 -
DRAPrioritizedList 33 -
DRAResourceClaimDeviceStatus 32 -
DRASchedulerFilterTimeout 34 -
DeploymentReplicaSetTerminatingReplicas 33 -
DisableAllocatorDualWrite 31 37
DisableCPUQuotaWithExclusiveCPUs 33 -
DisableNodeKubeProxyVersion 29 -
DynamicResourceAllocation 26 37
EnvFiles 34 -
EventedPLEG 26 -
ExecProbeTimeout 20 37
ExternalServiceAccountTokenSigner 32 -
GenericWorkload 35 -
GitRepoVolumeDriver 33 -
GracefulNodeShutdown 20 -
GracefulNodeShutdownBasedOnPodPriority 23 -
HPAConfigurableTolerance 33 -
HPAScaleToZero 16 -
HonorPVReclaimPolicy 23 35
HostnameOverride 34 -
ImageMaximumGCAge 29 -
ImageVolume 31 -
ImageVolumeWithDigest 36 -
InPlacePodLevelResourcesVerticalScaling 35 -
InPlacePodVerticalScaling 27 37
InPlacePodVerticalScalingAllocatedStatus 32 35
InPlacePodVerticalScalingExclusiveCPUs 32 -
InPlacePodVerticalScalingExclusiveMemory 34 -
InTreePluginPortworxUnregister 23 35
JobManagedBy 30 37
KubeletCgroupDriverFromCRI 28 -
KubeletCrashLoopBackOffMax 32 -
KubeletEnsureSecretPulledImages 33 -
KubeletFineGrainedAuthz 32 -
KubeletInUserNamespace 22 -
KubeletPSI 33 -
KubeletPodResourcesDynamicResources 27 -
KubeletPodResourcesGet 27 -
KubeletPodResourcesListUseActivePods 34 -
KubeletRegistrationGetOnExistsOnly 32 -
KubeletSeparateDiskGC 29 -
KubeletServiceAccountTokenForCredentialProviders 33 -
KubeletTracing 25 37
LocalStorageCapacityIsolationFSQuotaMonitoring 15 -
MatchLabelKeysInPodAffinity 29 37
MatchLabelKeysInPodTopologySpread 25 -
MatchLabelKeysInPodTopologySpreadSelectorMerge 34 -
MaxUnavailableStatefulSet 24 -
MemoryManager 21 35
MemoryQoS 22 -
MultiCIDRServiceAllocator 27 37
MutableCSINodeAllocatableCount 33 -
MutablePVNodeAffinity 35 -
MutablePodResourcesForSuspendedJobs 35 -
MutableSchedulingDirectivesForSuspendedJobs 35 -
NFTablesProxyMode 29 37
NodeDeclaredFeatures 35 -
NodeInclusionPolicyInPodTopologySpread 25 -
NodeLogQuery 27 -
NodeSwap 22 37
NominatedNodeNameForExpectation 34 -
OpportunisticBatching 35 -
PodAndContainerStatsFromCRI 23 -
PodCertificateRequest 34 -
PodDeletionCost 21 -
PodLevelResources 32 -
PodLogsQuerySplitStreams 32 -
PodObservedGenerationTracking 33 -
PodReadyToStartContainersCondition 28 -
PodSchedulingReadiness 26 37
PodTopologyLabelsAdmission 33 -
PortForwardWebsockets 30 -
PreferSameTrafficDistribution 33 37
ProcMountType 12 -
QOSReserved 11 -
RecoverVolumeExpansionFailure 23 37
RecursiveReadOnlyMounts 30 -
ReduceDefaultCrashLoopBackOffDecay 33 -
RelaxedEnvironmentVariableValidation 30 -
RelaxedServiceNameValidation 34 -
ReloadKubeletServerCertificateFile 31 -
ResourceHealthStatus 31 -
RestartAllContainersOnContainerExits 35 -
RotateKubeletServerCertificate 7 -
SELinuxChangePolicy 32 -
SELinuxMount 30 -
SELinuxMountReadWriteOncePod 25 -
SchedulerAsyncAPICalls 34 -
SchedulerAsyncPreemption 32 -
SchedulerPopFromBackoffQ 33 -
SeparateTaintEvictionController 29 37
ServiceAccountNodeAudienceRestriction 32 -
ServiceAccountTokenJTI 29 37
ServiceAccountTokenNodeBinding 29 37
ServiceAccountTokenNodeBindingValidation 29 37
ServiceAccountTokenPodNodeInfo 29 37
ServiceTrafficDistribution 30 35
StatefulSetSemanticRevisionComparison 34 -
StorageCapacityScoring 33 -
StorageNamespaceIndex 30 -
StorageVersionMigrator 30 -
StrictIPCIDRValidation 33 -
SupplementalGroupsPolicy 31 37
SystemdWatchdog 32 37
TaintTolerationComparisonOperators 35 -
TopologyAwareHints 21 35
TopologyManagerPolicyAlphaOptions 26 -
TopologyManagerPolicyBetaOptions 26 -
TopologyManagerPolicyOptions 26 -
TranslateStreamCloseWebsocketRequests 29 -
UserNamespacesHostNetworkSupport 35 -
UserNamespacesSupport 25 -
VolumeAttributesClass 29 -
VolumeLimitScaling 35 -
WinDSR 14 37
WinOverlay 14 37
WindowsCPUAndMemoryAffinity 32 -
WindowsGracefulNodeShutdown 32 -
WindowsHostNetwork 26 37
CRDObservedGenerationTracking 35 -
CRDValidationRatcheting 28 37
CustomResourceFieldSelectors 30 37
APIResponseCompression 8 -
APIServerIdentity 20 -
APIServingWithRoutine 30 -
AggregatedDiscoveryRemoveBetaType 33 37
AllowParsingUserUIDFromCertAuth 33 -
AllowUnsafeMalformedObjectDeletion 32 -
CBORServingAndStorage 32 -
ConcurrentWatchObjectDecode 31 -
ConstrainedImpersonation 35 -
CoordinatedLeaderElection 31 -
DeclarativeValidation 33 -
DeclarativeValidationTakeover 33 -
DetectCacheInconsistency 34 -
KMSv1 0 -
ListFromCacheSnapshot 33 -
MutatingAdmissionPolicy 30 -
OpenAPIEnums 23 -
RemoteRequestHeaderUID 32 -
SeparateCacheWatchRPC 28 -
SizeBasedListCostEstimate 34 -
StorageVersionAPI 20 -
StorageVersionHash 14 -
StructuredAuthenticationConfigurationEgressSelector 34 -
StructuredAuthenticationConfigurationJWKSMetrics 35 -
StructuredAuthorizationConfiguration 29 35
TokenRequestServiceAccountUIDValidation 34 -
UnauthenticatedHTTP2DOSMitigation 25 -
UnknownVersionInteroperabilityProxy 28 -
WatchCacheInitializationPostStartHook 31 -
WatchFromStorageWithoutResourceVersion 27 35
WatchList 27 -
CloudControllerManagerWatchBasedRoutesReconciliation 35 -
CloudControllerManagerWebhook 27 -
ComponentFlagz 32 -
ComponentStatusz 32 -
# added in 1.37 (its changelog; a gate locked there whose first release is not recorded: from the start)
ConsistentListFromCacheSkipTimeoutFallback 37 -
EtcdRangeStream 37 -
InPlacePodVerticalScalingInitContainers 36 -
KubeProxyIPVS 37 -
PLEGOnDemandRelist 36 -
# removed in 1.37 (its changelog; the list of skyhook-io/radar's 1.37 upgrade checks)
APIServerTracing 22 36
AnonymousAuthConfigurableEndpoints 31 36
AnyVolumeDataSource 18 36
AuthorizeNodeWithSelectors 31 36
AuthorizeWithSelectors 31 36
BtreeWatchCache 32 36
ConsistentListFromCache 28 36
GangScheduling 35 36
JobBackoffLimitPerIndex 28 36
JobPodReplacementPolicy 28 36
JobSuccessPolicy 30 36
LogarithmicScaleDown 21 36
OrderedNamespaceDeletion 30 36
PodLifecycleSleepAction 29 36
PodLifecycleSleepActionAllowZero 32 36
PreventStaticPodAPIReferences 34 36
RelaxedDNSSearchValidation 32 36
ResilientWatchCacheInitialization 31 36
RetryGenerateName 30 36
SchedulerQueueingHints 28 36
SidecarContainers 28 36
StreamingCollectionEncodingToJSON 33 36
StreamingCollectionEncodingToProtobuf 33 36
StructuredAuthenticationConfiguration 29 36
WorkloadAwarePreemption 36 36
# documented as added in 1.36
CRIListStreaming 36 -
ControllerManagerReleaseLeaderElectionLockOnExit 36 37
DRAListTypeAttributes 36 -
DRANodeAllocatableResources 36 -
DRAResourcePoolStatus 36 -
DeclarativeValidationBeta 36 -
ExtendWebSocketsToKubelet 36 -
ManifestBasedAdmissionControlConfig 36 -
NativeHistograms 36 -
PersistentVolumeClaimUnusedSinceTime 36 -
PodLevelResourceManagers 36 -
ReloadKubeletClientCAFile 36 -
ShardedListAndWatch 36 -
StaleControllerConsistencyDaemonSet 36 -
StaleControllerConsistencyReplicaSet 36 -
StaleControllerConsistencyStatefulSet 36 -
TopologyAwareWorkloadScheduling 36 -
WorkloadWithJob 36 -
# registered beside kube_features.go (logging, metrics, client-go) or documented without a first release
AtomicFIFO 36 -
ClientsAllowCBOR 32 -
ClientsPreferCBOR 32 -
CloudNodeAdditionalLabelsReconciliation 38 -
ComponentSLIs 0 34
CompositePodGroup 37 -
ConditionalAuthorization 38 -
ContextualLogging 0 -
InOrderInformers 33 -
InOrderInformersBatchProcess 35 -
InformerResourceVersion 30 -
LoggingAlphaOptions 0 -
LoggingBetaOptions 0 -
WatchListClient 30 -
# in the 1.33 tree, gone from the 1.36 one
AllowServiceLBStatusOnNonLB 0 34
CronJobsScheduledAnnotation 28 34
DevicePluginCDIDevices 28 33
ElasticIndexedJob 27 33
LegacySidecarContainers 33 33
LoadBalancerIPMode 29 34
PodDisruptionConditions 25 33
PodIndexLabel 28 34
SizeMemoryBackedVolumes 20 34
StatefulSetAutoDeletePVC 23 34
StatefulSetStartOrdinal 26 33
StrictCostEnforcementForVAP 30 34
StrictCostEnforcementForWebhooks 30 34
UserNamespacesPodSecurityStandards 29 34
# added after 1.27 and gone before the 1.33 tree
AppArmorFields 30 32
DRAControlPlaneController 31 31
DefaultHostNetworkHostPortsInPodTemplates 0 30
KMSv2KDF 28 31
KubeProxyDrainingTerminatingNodes 28 32
LegacyServiceAccountTokenCleanUp 28 31
PersistentVolumeLastPhaseTransitionTime 28 32
PodHostIPs 28 31
SkipReadOnlyValidationGCE 28 30
ZeroLimitedNominalConcurrencyShares 28 31
# in the 1.27 tables, gone before the 1.33 tree
APIListChunking 8 32
APIPriorityAndFairness 18 30
APISelfSubjectReview 26 29
AdmissionWebhookMatchConditions 27 32
AggregatedDiscoveryEndpoint 26 32
AppArmor 4 32
CPUManager 8 32
CSIMigrationAzureFile 15 29
CSIMigrationRBD 23 30
CSINodeExpandSecret 25 30
CloudDualStackNodeIPs 27 31
ConsistentHTTPGetHandlers 25 30
CustomResourceValidationExpressions 23 30
DisableCloudProviders 22 32
DisableKubeletCloudCredentialProviders 23 32
EfficientWatchResumption 20 32
ExpandedDNSConfig 22 29
ExperimentalHostUserNamespaceDefaulting 5 29
HPAContainerMetrics 20 31
IPTablesOwnershipCleanup 25 29
InTreePluginAWSUnregister 21 30
InTreePluginAzureDiskUnregister 21 30
InTreePluginAzureFileUnregister 21 30
InTreePluginGCEUnregister 21 30
InTreePluginOpenStackUnregister 21 30
InTreePluginRBDUnregister 23 30
InTreePluginvSphereUnregister 21 30
JobPodFailurePolicy 25 32
JobReadyPods 23 30
KMSv2 25 31
KubeletPodResources 13 29
KubeletPodResourcesGetAllocatable 21 29
LegacyServiceAccountTokenTracking 26 29
MinDomainsInPodTopologySpread 24 31
MinimizeIPTablesRestore 26 29
NewVolumeManagerReconstruction 27 31
NodeOutOfServiceVolumeDetach 24 31
PDBUnhealthyPodEvictionPolicy 26 32
ProxyTerminatingEndpoints 22 29
ReadWriteOncePod 22 30
RemainingItemCount 15 32
RemoveSelfLink 16 29
SecurityContextDeny 27 29
ServerSideApply 14 31
ServerSideFieldValidation 23 31
ServiceNodePortStaticSubrange 27 30
StableLoadBalancerNodeSet 27 31
ValidatingAdmissionPolicy 26 31
VolumeCapacityPriority 21 32
WatchBookmark 15 32
# the removed-gates table of 1.29
Accelerators 6 11
AdvancedAuditing 7 27
AffinityInAnnotations 6 8
AllowExtTrafficLocalEndpoints 4 9
AllowInsecureBackendProxy 17 25
AttachVolumeLimit 11 21
BalanceAttachedNodeVolumes 11 22
BlockVolume 9 21
BoundServiceAccountTokenVolume 13 23
CRIContainerLogRotation 10 22
CSIBlockVolume 11 21
CSIDriverRegistry 12 21
CSIInlineVolume 15 26
CSIMigration 14 26
CSIMigrationAWS 14 26
CSIMigrationAWSComplete 17 21
CSIMigrationAzureDisk 15 26
CSIMigrationAzureDiskComplete 17 21
CSIMigrationAzureFileComplete 17 21
CSIMigrationGCE 14 27
CSIMigrationGCEComplete 17 21
CSIMigrationOpenStack 14 25
CSIMigrationOpenStackComplete 17 21
CSIMigrationvSphere 18 28
CSIMigrationvSphereComplete 19 22
CSINodeInfo 12 22
CSIPersistentVolume 9 16
CSIServiceAccountToken 20 24
CSIStorageCapacity 19 27
CSIVolumeFSGroupPolicy 19 25
CSRDuration 22 25
ConfigurableFSGroupPolicy 18 25
ControllerManagerLeaderMigration 21 26
CronJobControllerV2 20 23
CronJobTimeZone 24 28
CustomPodDNS 9 16
CustomResourceDefaulting 15 18
CustomResourcePublishOpenAPI 14 18
CustomResourceSubresources 10 18
CustomResourceValidation 8 18
CustomResourceWebhookConversion 13 18
DaemonSetUpdateSurge 21 28
DefaultPodTopologySpread 19 25
DelegateFSGroupToCSIDriver 22 27
DevicePlugins 8 27
DisableAcceleratorUsageMetrics 19 27
DownwardAPIHugePages 20 28
DryRun 12 27
DynamicAuditing 13 19
DynamicKubeletConfig 4 25
DynamicProvisioningScheduling 11 12
DynamicVolumeProvisioning 3 12
EnableAggregatedDiscoveryTimeout 16 17
EnableEquivalenceClassCache 8 23
EndpointSlice 16 24
EndpointSliceNodeName 20 24
EndpointSliceProxying 18 24
EndpointSliceTerminatingCondition 20 27
EphemeralContainers 16 26
EvenPodsSpread 16 21
ExpandCSIVolumes 14 26
ExpandInUsePersistentVolumes 11 26
ExpandPersistentVolumes 8 26
ExperimentalCriticalPodAnnotation 5 16
ExternalPolicyForExternalIP 18 22
GCERegionalPersistentDisk 10 16
GRPCContainerProbe 23 28
GenericEphemeralVolume 19 24
HugePageStorageMediumSize 18 24
HugePages 8 16
HyperVContainer 10 20
IPv6DualStack 15 24
IdentifyPodOS 23 26
ImmutableEphemeralVolumes 18 24
IndexedJob 21 25
IngressClassNamespacedParams 21 24
Initializers 7 14
JobMutableNodeSchedulingDirectives 23 28
JobTrackingWithFinalizers 22 28
KubeletConfigFile 8 10
KubeletCredentialProviders 20 28
KubeletPluginsWatcher 11 16
LegacyNodeRoleBehavior 16 22
LegacyServiceAccountTokenNoAutoGeneration 24 28
LocalStorageCapacityIsolation 7 26
MixedProtocolLBService 20 27
MountContainers 9 17
MountPropagation 8 14
MultiCIDRRangeAllocator 25 28
NamespaceDefaultLabelName 21 23
NetworkPolicyEndPort 21 26
NetworkPolicyStatus 24 27
NodeDisruptionExclusion 16 22
NodeLease 12 23
NonPreemptingPriority 15 25
OpenAPIV3 23 28
PVCProtection 9 10
PersistentLocalVolumes 7 16
PodAffinityNamespaceSelector 21 25
PodDisruptionBudget 3 25
PodHasNetworkCondition 25 27
PodOverhead 16 25
PodPriority 8 18
PodReadinessGates 11 16
PodSecurity 22 27
PodShareProcessNamespace 10 19
PreferNominatedNode 21 25
ProbeTerminationGracePeriod 21 28
RequestManagement 15 17
ResourceLimitsPriorityFunction 9 19
ResourceQuotaScopeSelectors 11 18
RetroactiveDefaultStorageClass 25 28
RootCAConfigMap 13 22
RotateKubeletClientCertificate 8 21
RunAsGroup 14 22
RuntimeClass 12 24
SCTPSupport 12 22
ScheduleDaemonSetPods 11 18
SeccompDefault 22 28
SelectorIndex 18 25
ServiceAccountIssuerDiscovery 18 23
ServiceAppProtocol 18 22
ServiceIPStaticSubrange 24 27
ServiceInternalTrafficPolicy 21 27
ServiceLBNodePortControl 20 25
ServiceLoadBalancerClass 21 25
ServiceLoadBalancerFinalizer 15 20
ServiceNodeExclusion 8 22
ServiceTopology 17 22
SetHostnameAsFQDN 19 24
StartupProbe 16 23
StatefulSetMinReadySeconds 22 26
StorageObjectInUseProtection 10 24
StreamingProxyRedirects 5 24
SupportIPVSProxyMode 8 20
SupportNodePidsLimit 14 23
SupportPodPidsLimit 10 23
SuspendJob 21 25
Sysctls 11 22
TTLAfterFinished 12 24
TaintBasedEvictions 6 20
TaintNodesByCondition 8 18
TokenRequest 10 21
TokenRequestProjection 11 21
TopologyManager 16 28
UserNamespacesStatelessPodsSupport 25 27
ValidateProxyRedirects 12 24
VolumePVCDataSource 15 21
VolumeScheduling 9 16
VolumeSnapshotDataSource 12 22
VolumeSubpath 10 24
VolumeSubpathEnvExpansion 14 24
WarningHeaders 19 24
WindowsEndpointSliceProxying 19 24
WindowsGMSA 14 20
WindowsHostProcessContainers 22 27
WindowsRunAsUserName 16 20
# from the kubelet judges (tests/kubelet/update_gates.py): kubelet's own registry of each judged release
APIServerWebhookAuthenticationToken 37 -
AllowServiceExternalIPs 36 -
AtomicWriteVolumeUserFields 37 -
ClientsAllowCARotation 36 -
ClientsAllowTLSCacheGC 36 -
DRADerivedAttributes 37 -
DRADeviceCompatibilityGroups 37 -
DRAFractionalCapacityRange 37 -
DRAOptionalNodeOperations 37 -
DRAPartitionableDevicesType 37 -
DRAResourceClaimGranularStatusAuthorization 36 -
DRAWorkloadResourceClaims 36 -
DefaultPodSysctls 37 -
EmptyDirVolumeMode 37 -
EvictionRequestAPI 37 -
ExcludeAdmissionWebhookVirtualResources 37 -
GRPCContainerProbeTLS 37 -
H2CContainerProbe 37 -
HPAGeneration 37 -
HPAOptimizedSelectorStore 37 -
HugepageAwareEviction 37 -
InPlacePodVerticalScalingMemoryBackedVolumes 37 -
InPlacePodVerticalScalingSchedulerPreemption 37 -
InterPodAffinityHostnameFastPath 37 -
KubeProxyNFTablesLocalhostNodePorts 37 -
KubeletAllocatedPodsEndpoint 37 -
NFTablesNetlink 37 -
NodeControllerLeaseCircuitBreaker 37 -
NodeLifecycleConditions 37 -
PodGroupPreemptionPolicy 37 37
PodLevelResourcesFixDefaulting 37 -
PodLevelResourcesFixKubeletQOSClass 37 -
PodsAPI 36 -
ResourceHealthStatusMessage 36 -
RuntimeClassInImageCriApi 29 -
SchedulerPreQueueingHints 37 -
ServiceCIDRStatusFieldWiping 36 -
StaleControllerConsistencyHPA 37 -
StaleControllerConsistencyJob 36 -
StatefulSetRecreateStrategy 37 -
UnlockWhileProcessingFIFO 36 -
VolumeBindMountOptions 37 -
WatchListCompression 37 -
WebhookRoundTripLoadBalancing 37 -
ProbeHostPodSecurityStandards 34 34
AllocatorPoolBufferCap 38 -
CertificateSigningRequestMLDSA 38 -
ClientsAllowConnectionPool 38 -
ConsistentGetFromCache 38 -
DynamicNodeLocalEphemeralVolumes 38 -
KubeAPIServerWorkloadsTrust 38 -
ManagedFieldsOptOut 38 -
ManagedFieldsOptOutClient 38 -
OpenAPIV2LazyBuild 38 -
PodCertificateMLDSA 38 -
RequestCostAggregation 38 -
SecurityProfileOCI 38 -
ServiceAccountTokenMLDSA 38 -
WatchFromStorageWithoutPrevKV 38 -
WatchListClientConcurrentDecoding 38 -
"""


# kubelet's own registry of each release the kubelet judge is built for (tests/kubelet/update_gates.py writes it):
# "minor name default locked stage needs": the gates locked to their default, those that need others, and the gates
# needed. kubelet refuses to start with a locked gate set to the other value, and with an enabled gate whose needs
# are disabled (component-base featuregate: SetFromMap's checks); AllAlpha and AllBeta set every gate of their stage
# that is not set by name.
_REGISTRIES = """
29 APIListChunking on locked GA -
29 APIPriorityAndFairness on locked GA -
29 APISelfSubjectReview on locked GA -
29 CPUManager on locked GA -
29 CSIMigrationAzureFile on locked GA -
29 CSINodeExpandSecret on locked GA -
29 CustomResourceValidationExpressions on locked GA -
29 EfficientWatchResumption on locked GA -
29 ExpandedDNSConfig on locked GA -
29 ExperimentalHostUserNamespaceDefaulting off locked DEPRECATED -
29 IPTablesOwnershipCleanup on locked GA -
29 JobReadyPods on locked GA -
29 KMSv2 on locked GA -
29 KMSv2KDF on locked GA -
29 KubeletPodResources on locked GA -
29 KubeletPodResourcesGetAllocatable on locked GA -
29 LegacyServiceAccountTokenTracking on locked GA -
29 MinimizeIPTablesRestore on locked GA -
29 NodeOutOfServiceVolumeDetach on locked GA -
29 ProxyTerminatingEndpoints on locked GA -
29 ReadWriteOncePod on locked GA -
29 RemainingItemCount on locked GA -
29 RemoveSelfLink on locked GA -
29 ServerSideApply on locked GA -
29 ServerSideFieldValidation on locked GA -
29 ServiceNodePortStaticSubrange on locked GA -
29 WatchBookmark on locked GA -
30 APIListChunking on locked GA -
30 APIPriorityAndFairness on locked GA -
30 AdmissionWebhookMatchConditions on locked GA -
30 AggregatedDiscoveryEndpoint on locked GA -
30 CPUManager on locked GA -
30 CSINodeExpandSecret on locked GA -
30 CloudDualStackNodeIPs on locked GA -
30 ConsistentHTTPGetHandlers on locked GA -
30 CustomResourceValidationExpressions on locked GA -
30 EfficientWatchResumption on locked GA -
30 HPAContainerMetrics on locked GA -
30 JobReadyPods on locked GA -
30 KMSv2 on locked GA -
30 KMSv2KDF on locked GA -
30 LegacyServiceAccountTokenCleanUp on locked GA -
30 MinDomainsInPodTopologySpread on locked GA -
30 NewVolumeManagerReconstruction on locked GA -
30 NodeOutOfServiceVolumeDetach on locked GA -
30 PodHostIPs on locked GA -
30 PodSchedulingReadiness on locked GA -
30 ReadWriteOncePod on locked GA -
30 RemainingItemCount on locked GA -
30 ServerSideApply on locked GA -
30 ServerSideFieldValidation on locked GA -
30 ServiceNodePortStaticSubrange on locked GA -
30 StableLoadBalancerNodeSet on locked GA -
30 ValidatingAdmissionPolicy on locked GA -
30 WatchBookmark on locked GA -
30 ZeroLimitedNominalConcurrencyShares on locked GA -
31 APIListChunking on locked GA -
31 AdmissionWebhookMatchConditions on locked GA -
31 AggregatedDiscoveryEndpoint on locked GA -
31 AppArmor on locked GA -
31 AppArmorFields on locked GA -
31 CPUManager on locked GA -
31 CloudDualStackNodeIPs on locked GA -
31 DevicePluginCDIDevices on locked GA -
31 DisableCloudProviders on locked GA -
31 DisableKubeletCloudCredentialProviders on locked GA -
31 EfficientWatchResumption on locked GA -
31 ElasticIndexedJob on locked GA -
31 HPAContainerMetrics on locked GA -
31 JobPodFailurePolicy on locked GA -
31 KMSv2 on locked GA -
31 KMSv2KDF on locked GA -
31 KubeProxyDrainingTerminatingNodes on locked GA -
31 LegacyServiceAccountTokenCleanUp on locked GA -
31 LogarithmicScaleDown on locked GA -
31 MinDomainsInPodTopologySpread on locked GA -
31 NewVolumeManagerReconstruction on locked GA -
31 NodeOutOfServiceVolumeDetach on locked GA -
31 PDBUnhealthyPodEvictionPolicy on locked GA -
31 PersistentVolumeLastPhaseTransitionTime on locked GA -
31 PodDisruptionConditions on locked GA -
31 PodHostIPs on locked GA -
31 PodSchedulingReadiness on locked GA -
31 RemainingItemCount on locked GA -
31 ServerSideApply on locked GA -
31 ServerSideFieldValidation on locked GA -
31 StableLoadBalancerNodeSet on locked GA -
31 StatefulSetStartOrdinal on locked GA -
31 ValidatingAdmissionPolicy on locked GA -
31 WatchBookmark on locked GA -
31 ZeroLimitedNominalConcurrencyShares on locked GA -
32 APIListChunking on locked GA -
32 AdmissionWebhookMatchConditions on locked GA -
32 AggregatedDiscoveryEndpoint on locked GA -
32 AllowServiceLBStatusOnNonLB off locked DEPRECATED -
32 AppArmor on locked GA -
32 AppArmorFields on locked GA -
32 CPUManager on locked GA -
32 ComponentSLIs on locked GA -
32 CronJobsScheduledAnnotation on locked GA -
32 CustomResourceFieldSelectors on locked GA -
32 DevicePluginCDIDevices on locked GA -
32 DisableCloudProviders on locked GA -
32 DisableKubeletCloudCredentialProviders on locked GA -
32 EfficientWatchResumption on locked GA -
32 ElasticIndexedJob on locked GA -
32 JobPodFailurePolicy on locked GA -
32 KubeProxyDrainingTerminatingNodes on locked GA -
32 LoadBalancerIPMode on locked GA -
32 LogarithmicScaleDown on locked GA -
32 MemoryManager on locked GA -
32 PDBUnhealthyPodEvictionPolicy on locked GA -
32 PersistentVolumeLastPhaseTransitionTime on locked GA -
32 PodDisruptionConditions on locked GA -
32 PodIndexLabel on locked GA -
32 PodSchedulingReadiness on locked GA -
32 RemainingItemCount on locked GA -
32 RetryGenerateName on locked GA -
32 ServiceAccountTokenJTI on locked GA -
32 ServiceAccountTokenNodeBindingValidation on locked GA -
32 ServiceAccountTokenPodNodeInfo on locked GA -
32 SizeMemoryBackedVolumes on locked GA -
32 StatefulSetAutoDeletePVC on locked GA -
32 StatefulSetStartOrdinal on locked GA -
32 StrictCostEnforcementForVAP on locked GA -
32 StrictCostEnforcementForWebhooks on locked GA -
32 StructuredAuthorizationConfiguration on locked GA -
32 WatchBookmark on locked GA -
33 AllowServiceLBStatusOnNonLB off locked DEPRECATED -
33 AnyVolumeDataSource on locked GA -
33 BtreeWatchCache on locked GA -
33 CPUManagerPolicyOptions on locked GA -
33 CRDValidationRatcheting on locked GA -
33 CSIMigrationPortworx on locked GA -
33 ComponentSLIs on locked GA -
33 CronJobsScheduledAnnotation on locked GA -
33 CustomResourceFieldSelectors on locked GA -
33 DevicePluginCDIDevices on locked GA -
33 ElasticIndexedJob on locked GA -
33 HonorPVReclaimPolicy on locked GA -
33 JobBackoffLimitPerIndex on locked GA -
33 JobSuccessPolicy on locked GA -
33 LoadBalancerIPMode on locked GA -
33 LogarithmicScaleDown on locked GA -
33 MatchLabelKeysInPodAffinity on locked GA -
33 MemoryManager on locked GA -
33 NFTablesProxyMode on locked GA -
33 NodeInclusionPolicyInPodTopologySpread on locked GA -
33 PodDisruptionConditions on locked GA -
33 PodIndexLabel on locked GA -
33 PodSchedulingReadiness on locked GA -
33 RecursiveReadOnlyMounts on locked GA -
33 RetryGenerateName on locked GA -
33 ServiceAccountTokenJTI on locked GA -
33 ServiceAccountTokenNodeBinding on locked GA -
33 ServiceAccountTokenNodeBindingValidation on locked GA -
33 ServiceAccountTokenPodNodeInfo on locked GA -
33 ServiceTrafficDistribution on locked GA -
33 SidecarContainers on locked GA -
33 SizeMemoryBackedVolumes on locked GA -
33 StatefulSetAutoDeletePVC on locked GA -
33 StatefulSetStartOrdinal on locked GA -
33 StrictCostEnforcementForVAP on locked GA -
33 StrictCostEnforcementForWebhooks on locked GA -
33 StructuredAuthorizationConfiguration on locked GA -
33 TopologyAwareHints on locked GA -
33 WatchFromStorageWithoutResourceVersion off locked DEPRECATED -
34 APIServerTracing on locked GA -
34 AllowServiceLBStatusOnNonLB off locked DEPRECATED -
34 AnonymousAuthConfigurableEndpoints on locked GA -
34 AnyVolumeDataSource on locked GA -
34 AuthorizeNodeWithSelectors on locked GA -
34 AuthorizeWithSelectors on locked GA -
34 BtreeWatchCache on locked GA -
34 CPUManagerPolicyOptions on locked GA -
34 CRDValidationRatcheting on locked GA -
34 CSIMigrationPortworx on locked GA -
34 ComponentSLIs on locked GA -
34 ConsistentListFromCache on locked GA -
34 CronJobsScheduledAnnotation on locked GA -
34 CustomResourceFieldSelectors on locked GA -
34 HonorPVReclaimPolicy on locked GA -
34 JobBackoffLimitPerIndex on locked GA -
34 JobPodReplacementPolicy on locked GA -
34 JobSuccessPolicy on locked GA -
34 KubeletCgroupDriverFromCRI on locked GA -
34 KubeletTracing on locked GA -
34 LoadBalancerIPMode on locked GA -
34 LogarithmicScaleDown on locked GA -
34 MatchLabelKeysInPodAffinity on locked GA -
34 MemoryManager on locked GA -
34 MultiCIDRServiceAllocator on locked GA -
34 NFTablesProxyMode on locked GA -
34 NodeInclusionPolicyInPodTopologySpread on locked GA -
34 NodeSwap on locked GA -
34 OrderedNamespaceDeletion on locked GA -
34 PodIndexLabel on locked GA -
34 PodLifecycleSleepAction on locked GA -
34 PodLifecycleSleepActionAllowZero on locked GA -
34 PodSchedulingReadiness on locked GA -
34 ProbeHostPodSecurityStandards on locked GA -
34 RecoverVolumeExpansionFailure on locked GA -
34 RecursiveReadOnlyMounts on locked GA -
34 RelaxedDNSSearchValidation on locked GA -
34 RelaxedEnvironmentVariableValidation on locked GA -
34 ResilientWatchCacheInitialization on locked GA -
34 RetryGenerateName on locked GA -
34 SchedulerQueueingHints on locked GA -
34 SeparateTaintEvictionController on locked GA -
34 ServiceAccountTokenJTI on locked GA -
34 ServiceAccountTokenNodeBinding on locked GA -
34 ServiceAccountTokenNodeBindingValidation on locked GA -
34 ServiceAccountTokenPodNodeInfo on locked GA -
34 ServiceTrafficDistribution on locked GA -
34 SidecarContainers on locked GA -
34 SizeMemoryBackedVolumes on locked GA -
34 StatefulSetAutoDeletePVC on locked GA -
34 StreamingCollectionEncodingToJSON on locked GA -
34 StreamingCollectionEncodingToProtobuf on locked GA -
34 StrictCostEnforcementForVAP on locked GA -
34 StrictCostEnforcementForWebhooks on locked GA -
34 StructuredAuthenticationConfiguration on locked GA -
34 StructuredAuthorizationConfiguration on locked GA -
34 TopologyAwareHints on locked GA -
34 WatchFromStorageWithoutResourceVersion off locked DEPRECATED -
34 WinDSR on locked GA -
34 WinOverlay on locked GA -
35 APIServerIdentity on free BETA -
35 APIServerTracing on locked GA -
35 AggregatedDiscoveryRemoveBetaType on locked DEPRECATED -
35 AllowOverwriteTerminationGracePeriodSeconds off locked DEPRECATED -
35 AnonymousAuthConfigurableEndpoints on locked GA -
35 AnyVolumeDataSource on locked GA -
35 AuthorizeNodeWithSelectors on locked GA AuthorizeWithSelectors
35 AuthorizeWithSelectors on locked GA -
35 BtreeWatchCache on locked GA -
35 CPUManagerPolicyOptions on locked GA -
35 CRDValidationRatcheting on locked GA -
35 CSIMigrationPortworx on locked GA -
35 ClusterTrustBundle off free BETA -
35 ClusterTrustBundleProjection off free BETA ClusterTrustBundle
35 ConsistentListFromCache on locked GA -
35 ContainerRestartRules on free BETA -
35 CustomResourceFieldSelectors on locked GA -
35 DRAAdminAccess on free BETA DynamicResourceAllocation
35 DRAConsumableCapacity off free ALPHA DynamicResourceAllocation
35 DRADeviceBindingConditions off free ALPHA DRAResourceClaimDeviceStatus,DynamicResourceAllocation
35 DRADeviceTaintRules off free ALPHA DRADeviceTaints
35 DRADeviceTaints off free ALPHA DynamicResourceAllocation
35 DRAExtendedResource off free ALPHA DynamicResourceAllocation
35 DRAPartitionableDevices off free ALPHA DynamicResourceAllocation
35 DRAPrioritizedList on free BETA DynamicResourceAllocation
35 DRAResourceClaimDeviceStatus on free BETA -
35 DRASchedulerFilterTimeout on free BETA DynamicResourceAllocation
35 DeclarativeValidation on free BETA -
35 DeclarativeValidationTakeover off free BETA DeclarativeValidation
35 DisableAllocatorDualWrite on locked GA MultiCIDRServiceAllocator
35 DynamicResourceAllocation on locked GA -
35 ExecProbeTimeout on locked GA -
35 GangScheduling off free ALPHA GenericWorkload
35 GenericWorkload off free ALPHA -
35 GracefulNodeShutdown on free BETA -
35 GracefulNodeShutdownBasedOnPodPriority on free BETA GracefulNodeShutdown
35 HonorPVReclaimPolicy on locked GA -
35 ImageMaximumGCAge on locked GA -
35 InPlacePodLevelResourcesVerticalScaling off free ALPHA InPlacePodVerticalScaling,NodeDeclaredFeatures,PodLevelResources
35 InPlacePodVerticalScaling on locked GA -
35 InPlacePodVerticalScalingAllocatedStatus off free DEPRECATED InPlacePodVerticalScaling
35 InPlacePodVerticalScalingExclusiveCPUs off free ALPHA InPlacePodVerticalScaling
35 InPlacePodVerticalScalingExclusiveMemory off free ALPHA InPlacePodVerticalScaling,MemoryManager
35 JobBackoffLimitPerIndex on locked GA -
35 JobManagedBy on locked GA -
35 JobPodReplacementPolicy on locked GA -
35 JobSuccessPolicy on locked GA -
35 KubeletCgroupDriverFromCRI on locked GA -
35 KubeletTracing on locked GA -
35 LogarithmicScaleDown on locked GA -
35 MatchLabelKeysInPodAffinity on locked GA -
35 MatchLabelKeysInPodTopologySpread on free BETA -
35 MatchLabelKeysInPodTopologySpreadSelectorMerge on free BETA MatchLabelKeysInPodTopologySpread
35 MemoryManager on locked GA -
35 MultiCIDRServiceAllocator on locked GA -
35 NFTablesProxyMode on locked GA -
35 NodeDeclaredFeatures off free ALPHA -
35 NodeInclusionPolicyInPodTopologySpread on locked GA -
35 NodeSwap on locked GA -
35 OrderedNamespaceDeletion on locked GA -
35 PodCertificateRequest off free BETA AuthorizeNodeWithSelectors
35 PodLevelResources on free BETA -
35 PodLifecycleSleepAction on locked GA -
35 PodLifecycleSleepActionAllowZero on locked GA PodLifecycleSleepAction
35 PodObservedGenerationTracking on locked GA -
35 PodSchedulingReadiness on locked GA -
35 PreferSameTrafficDistribution on locked GA -
35 ProcMountType on free BETA UserNamespacesSupport
35 RecoverVolumeExpansionFailure on locked GA -
35 RecursiveReadOnlyMounts on locked GA -
35 RelaxedDNSSearchValidation on locked GA -
35 RelaxedEnvironmentVariableValidation on locked GA -
35 ResilientWatchCacheInitialization on locked GA -
35 ResourceHealthStatus off free ALPHA DynamicResourceAllocation
35 RestartAllContainersOnContainerExits off free ALPHA ContainerRestartRules,NodeDeclaredFeatures
35 RetryGenerateName on locked GA -
35 SchedulerQueueingHints on locked GA -
35 SeparateTaintEvictionController on locked GA -
35 ServiceAccountTokenJTI on locked GA -
35 ServiceAccountTokenNodeBinding on locked GA ServiceAccountTokenNodeBindingValidation
35 ServiceAccountTokenNodeBindingValidation on locked GA -
35 ServiceAccountTokenPodNodeInfo on locked GA -
35 ServiceTrafficDistribution on locked GA -
35 SidecarContainers on locked GA -
35 StorageVersionAPI off free ALPHA APIServerIdentity
35 StreamingCollectionEncodingToJSON on locked GA -
35 StreamingCollectionEncodingToProtobuf on locked GA -
35 StructuredAuthenticationConfiguration on locked GA -
35 StructuredAuthenticationConfigurationEgressSelector on free BETA StructuredAuthenticationConfiguration
35 StructuredAuthenticationConfigurationJWKSMetrics on free BETA StructuredAuthenticationConfiguration
35 StructuredAuthorizationConfiguration on locked GA -
35 SupplementalGroupsPolicy on locked GA -
35 SystemdWatchdog on locked GA -
35 TopologyAwareHints on locked GA -
35 UnknownVersionInteroperabilityProxy off free ALPHA APIServerIdentity
35 UserNamespacesHostNetworkSupport off free ALPHA UserNamespacesSupport
35 UserNamespacesSupport on free BETA -
35 WatchFromStorageWithoutResourceVersion off locked DEPRECATED -
35 WinDSR on locked GA -
35 WinOverlay on locked GA -
35 WindowsCPUAndMemoryAffinity off free ALPHA MemoryManager
35 WindowsGracefulNodeShutdown on free BETA GracefulNodeShutdown
36 APIServerIdentity on free BETA -
36 APIServerTracing on locked GA -
36 AggregatedDiscoveryRemoveBetaType on locked DEPRECATED -
36 AllowOverwriteTerminationGracePeriodSeconds off locked DEPRECATED -
36 AnonymousAuthConfigurableEndpoints on locked GA -
36 AnyVolumeDataSource on locked GA -
36 AtomicFIFO on free BETA -
36 AuthorizeNodeWithSelectors on locked GA AuthorizeWithSelectors
36 AuthorizeWithSelectors on locked GA -
36 BtreeWatchCache on locked GA -
36 CPUManagerPolicyOptions on locked GA -
36 CRDValidationRatcheting on locked GA -
36 CSIServiceAccountTokenSecrets on locked GA -
36 ClusterTrustBundle off free BETA -
36 ClusterTrustBundleProjection off free BETA ClusterTrustBundle
36 ConsistentListFromCache on locked GA -
36 ContainerRestartRules on free BETA -
36 CustomResourceFieldSelectors on locked GA -
36 DRAAdminAccess on locked GA DynamicResourceAllocation
36 DRAConsumableCapacity on free BETA DynamicResourceAllocation
36 DRADeviceBindingConditions on free BETA DRAResourceClaimDeviceStatus,DynamicResourceAllocation
36 DRADeviceTaintRules off free BETA DRADeviceTaints
36 DRADeviceTaints on free BETA DynamicResourceAllocation
36 DRAExtendedResource on free BETA DynamicResourceAllocation
36 DRAListTypeAttributes off free ALPHA DynamicResourceAllocation
36 DRANodeAllocatableResources off free ALPHA DynamicResourceAllocation
36 DRAPartitionableDevices on free BETA DynamicResourceAllocation
36 DRAPrioritizedList on free GA DynamicResourceAllocation
36 DRAResourceClaimDeviceStatus on free BETA -
36 DRAResourceClaimGranularStatusAuthorization on free BETA DRAResourceClaimDeviceStatus,DynamicResourceAllocation
36 DRAResourcePoolStatus off free ALPHA DynamicResourceAllocation
36 DRASchedulerFilterTimeout on free BETA DynamicResourceAllocation
36 DRAWorkloadResourceClaims off free ALPHA DynamicResourceAllocation,GenericWorkload
36 DeclarativeValidation on locked GA -
36 DeclarativeValidationBeta on free BETA DeclarativeValidation
36 DeclarativeValidationTakeover off free DEPRECATED DeclarativeValidation
36 DisableAllocatorDualWrite on locked GA MultiCIDRServiceAllocator
36 DisableNodeKubeProxyVersion on locked DEPRECATED -
36 DynamicResourceAllocation on locked GA -
36 ExecProbeTimeout on locked GA -
36 ExtendWebSocketsToKubelet on free BETA NodeDeclaredFeatures
36 ExternalServiceAccountTokenSigner on locked GA -
36 GangScheduling off free ALPHA GenericWorkload
36 GenericWorkload off free ALPHA -
36 GitRepoVolumeDriver off locked DEPRECATED -
36 GracefulNodeShutdown on free BETA -
36 GracefulNodeShutdownBasedOnPodPriority on free BETA GracefulNodeShutdown
36 ImageMaximumGCAge on locked GA -
36 ImageVolume on locked GA -
36 ImageVolumeWithDigest off free ALPHA ImageVolume
36 InOrderInformers on locked GA -
36 InPlacePodLevelResourcesVerticalScaling on free BETA InPlacePodVerticalScaling,NodeDeclaredFeatures,PodLevelResources
36 InPlacePodVerticalScaling on locked GA -
36 InPlacePodVerticalScalingExclusiveCPUs off free ALPHA InPlacePodVerticalScaling
36 InPlacePodVerticalScalingExclusiveMemory off free ALPHA InPlacePodVerticalScaling
36 InPlacePodVerticalScalingInitContainers on free BETA InPlacePodVerticalScaling,NodeDeclaredFeatures
36 JobBackoffLimitPerIndex on locked GA -
36 JobManagedBy on locked GA -
36 JobPodReplacementPolicy on locked GA -
36 JobSuccessPolicy on locked GA -
36 KubeletCgroupDriverFromCRI on locked GA -
36 KubeletFineGrainedAuthz on locked GA -
36 KubeletPSI on locked GA -
36 KubeletPodResourcesDynamicResources on locked GA -
36 KubeletPodResourcesGet on locked GA -
36 KubeletTracing on locked GA -
36 LogarithmicScaleDown on locked GA -
36 MatchLabelKeysInPodAffinity on locked GA -
36 MatchLabelKeysInPodTopologySpread on free BETA -
36 MatchLabelKeysInPodTopologySpreadSelectorMerge on free BETA MatchLabelKeysInPodTopologySpread
36 MultiCIDRServiceAllocator on locked GA -
36 MutableCSINodeAllocatableCount on locked GA -
36 NFTablesProxyMode on locked GA -
36 NodeDeclaredFeatures on free BETA -
36 NodeInclusionPolicyInPodTopologySpread on locked GA -
36 NodeLogQuery on locked GA -
36 NodeSwap on locked GA -
36 OrderedNamespaceDeletion on locked GA -
36 PodCertificateRequest off free BETA AuthorizeNodeWithSelectors
36 PodLevelResourceManagers off free ALPHA PodLevelResources
36 PodLevelResources on free BETA -
36 PodLifecycleSleepAction on locked GA -
36 PodLifecycleSleepActionAllowZero on locked GA PodLifecycleSleepAction
36 PodObservedGenerationTracking on locked GA -
36 PodSchedulingReadiness on locked GA -
36 PreferSameTrafficDistribution on locked GA -
36 ProcMountType on locked GA UserNamespacesSupport
36 RecoverVolumeExpansionFailure on locked GA -
36 RecursiveReadOnlyMounts on locked GA -
36 RelaxedDNSSearchValidation on locked GA -
36 RelaxedEnvironmentVariableValidation on locked GA -
36 ResilientWatchCacheInitialization on locked GA -
36 ResourceHealthStatus on free BETA DynamicResourceAllocation
36 ResourceHealthStatusMessage on free BETA ResourceHealthStatus
36 RestartAllContainersOnContainerExits on free BETA ContainerRestartRules,NodeDeclaredFeatures
36 RetryGenerateName on locked GA -
36 SELinuxChangePolicy on locked GA -
36 SELinuxMountReadWriteOncePod on locked GA -
36 SchedulerQueueingHints on locked GA -
36 SeparateCacheWatchRPC off locked DEPRECATED -
36 SeparateTaintEvictionController on locked GA -
36 ServiceAccountTokenJTI on locked GA -
36 ServiceAccountTokenNodeBinding on locked GA ServiceAccountTokenNodeBindingValidation
36 ServiceAccountTokenNodeBindingValidation on locked GA -
36 ServiceAccountTokenPodNodeInfo on locked GA -
36 SidecarContainers on locked GA -
36 StaleControllerConsistencyDaemonSet on free BETA AtomicFIFO
36 StaleControllerConsistencyJob on free BETA AtomicFIFO
36 StaleControllerConsistencyReplicaSet on free BETA AtomicFIFO
36 StaleControllerConsistencyStatefulSet on free BETA AtomicFIFO
36 StorageVersionAPI off free ALPHA APIServerIdentity
36 StreamingCollectionEncodingToJSON on locked GA -
36 StreamingCollectionEncodingToProtobuf on locked GA -
36 StructuredAuthenticationConfiguration on locked GA -
36 StructuredAuthenticationConfigurationEgressSelector on free BETA StructuredAuthenticationConfiguration
36 StructuredAuthenticationConfigurationJWKSMetrics on free BETA StructuredAuthenticationConfiguration
36 SupplementalGroupsPolicy on locked GA -
36 SystemdWatchdog on locked GA -
36 TopologyAwareWorkloadScheduling off free ALPHA GenericWorkload
36 TopologyManagerPolicyOptions on locked GA -
36 UnknownVersionInteroperabilityProxy on free BETA APIServerIdentity
36 UserNamespacesHostNetworkSupport off free ALPHA NodeDeclaredFeatures,UserNamespacesSupport
36 UserNamespacesSupport on locked GA -
36 VolumeAttributesClass on locked GA -
36 WinDSR on locked GA -
36 WinOverlay on locked GA -
36 WindowsGracefulNodeShutdown on free BETA GracefulNodeShutdown
36 WorkloadAwarePreemption off free ALPHA GangScheduling
36 WorkloadWithJob off free ALPHA GenericWorkload
37 APIServerIdentity on free BETA -
37 AggregatedDiscoveryRemoveBetaType on locked DEPRECATED -
37 AllowOverwriteTerminationGracePeriodSeconds off locked DEPRECATED -
37 AtomicFIFO on free BETA -
37 CPUManagerPolicyOptions on locked GA -
37 CRDValidationRatcheting on locked GA -
37 CSIServiceAccountTokenSecrets on locked GA -
37 ClusterTrustBundle on free GA -
37 ClusterTrustBundleProjection on free GA ClusterTrustBundle
37 CompositePodGroup off free ALPHA GenericWorkload,TopologyAwareWorkloadScheduling
37 ContainerRestartRules on free BETA -
37 CustomResourceFieldSelectors on locked GA -
37 DRAAdminAccess on locked GA DynamicResourceAllocation
37 DRAConsumableCapacity on free BETA DynamicResourceAllocation
37 DRADerivedAttributes off free ALPHA DynamicResourceAllocation
37 DRADeviceBindingConditions on free BETA DRAResourceClaimDeviceStatus,DynamicResourceAllocation
37 DRADeviceCompatibilityGroups off free ALPHA DRAPartitionableDevices,DynamicResourceAllocation
37 DRADeviceTaintRules on free GA DRADeviceTaints
37 DRADeviceTaints on free GA DynamicResourceAllocation
37 DRAExtendedResource on locked GA DynamicResourceAllocation
37 DRAFractionalCapacityRange off free BETA DRAConsumableCapacity
37 DRAListTypeAttributes off free ALPHA DynamicResourceAllocation
37 DRANodeAllocatableResources off free ALPHA DynamicResourceAllocation
37 DRAOptionalNodeOperations off free ALPHA DynamicResourceAllocation,NodeDeclaredFeatures
37 DRAPartitionableDevices on free BETA DynamicResourceAllocation
37 DRAPartitionableDevicesType off free ALPHA DRAPartitionableDevices,DRAResourcePoolStatus,DynamicResourceAllocation
37 DRAPrioritizedList on locked GA DynamicResourceAllocation
37 DRAResourceClaimDeviceStatus on locked GA -
37 DRAResourceClaimGranularStatusAuthorization on free BETA DRAResourceClaimDeviceStatus,DynamicResourceAllocation
37 DRAResourcePoolStatus off free ALPHA DynamicResourceAllocation
37 DRASchedulerFilterTimeout on free BETA DynamicResourceAllocation
37 DRAWorkloadResourceClaims off free BETA DynamicResourceAllocation,GenericWorkload
37 DeclarativeValidation on locked GA -
37 DeclarativeValidationBeta on free BETA DeclarativeValidation
37 DeclarativeValidationTakeover off locked DEPRECATED DeclarativeValidation
37 DisableAllocatorDualWrite on locked GA MultiCIDRServiceAllocator
37 DisableCPUQuotaWithExclusiveCPUs on locked DEPRECATED -
37 DisableNodeKubeProxyVersion on locked DEPRECATED -
37 DynamicResourceAllocation on locked GA -
37 EventedPLEG off free ALPHA PLEGOnDemandRelist
37 ExecProbeTimeout on locked GA -
37 ExtendWebSocketsToKubelet on free BETA NodeDeclaredFeatures
37 ExternalServiceAccountTokenSigner on locked GA -
37 GenericWorkload off free BETA -
37 GitRepoVolumeDriver off locked DEPRECATED -
37 GracefulNodeShutdown on free BETA -
37 GracefulNodeShutdownBasedOnPodPriority on free BETA GracefulNodeShutdown
37 H2CContainerProbe off free ALPHA NodeDeclaredFeatures
37 HPAConfigurableTolerance on locked GA -
37 HostnameOverride on locked GA -
37 ImageMaximumGCAge on locked GA -
37 ImageVolume on locked GA -
37 ImageVolumeWithDigest off free ALPHA ImageVolume
37 InOrderInformers on locked GA -
37 InPlacePodLevelResourcesVerticalScaling on free BETA InPlacePodVerticalScaling,NodeDeclaredFeatures,PodLevelResources
37 InPlacePodVerticalScaling on locked GA -
37 InPlacePodVerticalScalingExclusiveCPUs off free ALPHA InPlacePodVerticalScaling
37 InPlacePodVerticalScalingExclusiveMemory off free ALPHA InPlacePodVerticalScaling
37 InPlacePodVerticalScalingInitContainers on locked GA InPlacePodVerticalScaling,NodeDeclaredFeatures
37 InPlacePodVerticalScalingMemoryBackedVolumes off free ALPHA InPlacePodVerticalScaling,NodeDeclaredFeatures
37 InPlacePodVerticalScalingSchedulerPreemption off free ALPHA InPlacePodVerticalScaling
37 JobManagedBy on locked GA -
37 KubeletAllocatedPodsEndpoint off free ALPHA InPlacePodVerticalScaling
37 KubeletCgroupDriverFromCRI on locked GA -
37 KubeletFineGrainedAuthz on locked GA -
37 KubeletPSI on locked GA -
37 KubeletPodResourcesDynamicResources on locked GA -
37 KubeletPodResourcesGet on locked GA -
37 KubeletTracing on locked GA -
37 MatchLabelKeysInPodAffinity on locked GA -
37 MatchLabelKeysInPodTopologySpread on free BETA -
37 MatchLabelKeysInPodTopologySpreadSelectorMerge on free BETA MatchLabelKeysInPodTopologySpread
37 MultiCIDRServiceAllocator on locked GA -
37 MutableCSINodeAllocatableCount on locked GA -
37 NFTablesProxyMode on locked GA -
37 NodeControllerLeaseCircuitBreaker on free BETA AtomicFIFO
37 NodeDeclaredFeatures on locked GA -
37 NodeInclusionPolicyInPodTopologySpread on locked GA -
37 NodeLogQuery on locked GA -
37 NodeSwap on locked GA -
37 PLEGOnDemandRelist on locked GA -
37 PodGroupPreemptionPolicy off free ALPHA GenericWorkload
37 PodLevelResourceManagers off free BETA PodLevelResources
37 PodLevelResources on free BETA -
37 PodLevelResourcesFixDefaulting on free BETA PodLevelResources
37 PodLevelResourcesFixKubeletQOSClass on free BETA PodLevelResources
37 PodObservedGenerationTracking on locked GA -
37 PodReadyToStartContainersCondition on locked GA -
37 PodSchedulingReadiness on locked GA -
37 PreferSameTrafficDistribution on locked GA -
37 ProcMountType on locked GA UserNamespacesSupport
37 RecoverVolumeExpansionFailure on locked GA -
37 RecursiveReadOnlyMounts on locked GA -
37 RelaxedEnvironmentVariableValidation on locked GA -
37 RelaxedServiceNameValidation on locked GA -
37 ResourceHealthStatus on free BETA DynamicResourceAllocation
37 ResourceHealthStatusMessage on free BETA ResourceHealthStatus
37 RestartAllContainersOnContainerExits on free BETA ContainerRestartRules,NodeDeclaredFeatures
37 SELinuxChangePolicy on locked GA -
37 SELinuxMountReadWriteOncePod on locked GA -
37 SeparateCacheWatchRPC off locked DEPRECATED -
37 SeparateTaintEvictionController on locked GA -
37 ServiceAccountTokenJTI on locked GA -
37 ServiceAccountTokenNodeBinding on locked GA ServiceAccountTokenNodeBindingValidation
37 ServiceAccountTokenNodeBindingValidation on locked GA -
37 ServiceAccountTokenPodNodeInfo on locked GA -
37 StaleControllerConsistencyDaemonSet on free BETA AtomicFIFO
37 StaleControllerConsistencyHPA on free BETA AtomicFIFO
37 StaleControllerConsistencyJob on free BETA AtomicFIFO
37 StaleControllerConsistencyReplicaSet on free BETA AtomicFIFO
37 StaleControllerConsistencyStatefulSet on free BETA AtomicFIFO
37 StorageVersionAPI off free ALPHA APIServerIdentity
37 SupplementalGroupsPolicy on locked GA -
37 SystemdWatchdog on locked GA -
37 TopologyAwareWorkloadScheduling off free ALPHA GenericWorkload
37 TopologyManagerPolicyOptions on locked GA -
37 UnknownVersionInteroperabilityProxy on free BETA APIServerIdentity
37 UserNamespacesHostNetworkSupport off free ALPHA NodeDeclaredFeatures,UserNamespacesSupport
37 UserNamespacesSupport on locked GA -
37 VolumeAttributesClass on locked GA -
37 WatchCacheInitializationPostStartHook on locked GA -
37 WinDSR on locked GA -
37 WinOverlay on locked GA -
37 WindowsGracefulNodeShutdown on free BETA GracefulNodeShutdown
37 WorkloadWithJob off free ALPHA GenericWorkload
38 APIServerIdentity on free BETA -
38 AtomicFIFO on free BETA -
38 AuthorizePodWebsocketUpgradeCreatePermission on locked GA -
38 CPUManagerPolicyOptions on locked GA -
38 CSIServiceAccountTokenSecrets on locked GA -
38 ClusterTrustBundle on free GA -
38 ClusterTrustBundleProjection on free GA ClusterTrustBundle
38 CompositePodGroup off free BETA GenericWorkload,TopologyAwareWorkloadScheduling
38 ContainerRestartRules on free BETA -
38 DRAAdminAccess on locked GA -
38 DRAConsumableCapacity on free GA -
38 DRADeviceBindingConditions on locked GA DRAResourceClaimDeviceStatus
38 DRADeviceCompatibilityGroups off free ALPHA DRAPartitionableDevices
38 DRADeviceTaintRules on locked GA DRADeviceTaints
38 DRADeviceTaints on locked GA -
38 DRAExtendedResource on locked GA -
38 DRAFractionalCapacityRange on free GA DRAConsumableCapacity
38 DRAOptionalNodeOperations off free ALPHA NodeDeclaredFeatures
38 DRAPartitionableDevices on locked GA -
38 DRAPartitionableDevicesType off free ALPHA DRAPartitionableDevices,DRAResourcePoolStatus
38 DRAPrioritizedList on locked GA -
38 DRAResourceClaimDeviceStatus on locked GA -
38 DRAResourceClaimGranularStatusAuthorization on free BETA DRAResourceClaimDeviceStatus
38 DRAResourcePoolStatus off free ALPHA -
38 DRAWorkloadResourceClaims off free BETA GenericWorkload
38 DeclarativeValidation on locked GA -
38 DeclarativeValidationBeta on free BETA DeclarativeValidation
38 DeclarativeValidationTakeover off locked DEPRECATED DeclarativeValidation
38 DisableCPUQuotaWithExclusiveCPUs on locked DEPRECATED -
38 DisableNodeKubeProxyVersion on locked DEPRECATED -
38 DynamicNodeLocalEphemeralVolumes off free ALPHA NodeDeclaredFeatures
38 EnvFiles on locked GA -
38 EventedPLEG off free ALPHA PLEGOnDemandRelist
38 ExtendWebSocketsToKubelet on locked GA NodeDeclaredFeatures
38 ExternalServiceAccountTokenSigner on locked GA -
38 GenericWorkload off free BETA -
38 GitRepoVolumeDriver off locked DEPRECATED -
38 GracefulNodeShutdown on free BETA -
38 GracefulNodeShutdownBasedOnPodPriority on free BETA GracefulNodeShutdown
38 H2CContainerProbe off free ALPHA NodeDeclaredFeatures
38 HPAConfigurableTolerance on locked GA -
38 HPAGeneration on locked GA -
38 HostnameOverride on locked GA -
38 ImageMaximumGCAge on locked GA -
38 ImageVolume on locked GA -
38 ImageVolumeWithDigest off free ALPHA ImageVolume
38 InOrderInformers on locked GA -
38 InPlacePodLevelResourcesVerticalScaling on free BETA NodeDeclaredFeatures,PodLevelResources
38 InPlacePodVerticalScalingInitContainers on locked GA NodeDeclaredFeatures
38 InPlacePodVerticalScalingMemoryBackedVolumes off free ALPHA NodeDeclaredFeatures
38 KubeAPIServerWorkloadsTrust off free ALPHA ClusterTrustBundle,ClusterTrustBundleProjection
38 KubeletCgroupDriverFromCRI on locked GA -
38 KubeletFineGrainedAuthz on locked GA -
38 KubeletPSI on locked GA -
38 KubeletPodResourcesDynamicResources on locked GA -
38 KubeletPodResourcesGet on locked GA -
38 MatchLabelKeysInPodTopologySpread on free BETA -
38 MatchLabelKeysInPodTopologySpreadSelectorMerge on free BETA MatchLabelKeysInPodTopologySpread
38 MutableCSINodeAllocatableCount on locked GA -
38 NodeControllerLeaseCircuitBreaker on free BETA AtomicFIFO
38 NodeDeclaredFeatures on locked GA -
38 NodeInclusionPolicyInPodTopologySpread on locked GA -
38 NodeLogQuery on locked GA -
38 PLEGOnDemandRelist on locked GA -
38 PodLevelResourceManagers off free BETA PodLevelResources
38 PodLevelResources on free BETA -
38 PodLevelResourcesFixDefaulting on free BETA PodLevelResources
38 PodLevelResourcesFixKubeletQOSClass on free BETA PodLevelResources
38 PodObservedGenerationTracking on locked GA -
38 PodReadyToStartContainersCondition on locked GA -
38 PortForwardWebsockets on locked GA -
38 ProcMountType on locked GA UserNamespacesSupport
38 RecursiveReadOnlyMounts on locked GA -
38 RelaxedEnvironmentVariableValidation on locked GA -
38 RelaxedServiceNameValidation on locked GA -
38 ResourceHealthStatus on free BETA -
38 ResourceHealthStatusMessage on free BETA ResourceHealthStatus
38 RestartAllContainersOnContainerExits on free BETA ContainerRestartRules,NodeDeclaredFeatures
38 SELinuxChangePolicy on locked GA -
38 SELinuxMountReadWriteOncePod on locked GA -
38 SeparateCacheWatchRPC off locked DEPRECATED -
38 StaleControllerConsistencyDaemonSet on free BETA AtomicFIFO
38 StaleControllerConsistencyHPA on free BETA AtomicFIFO
38 StaleControllerConsistencyJob on free BETA AtomicFIFO
38 StaleControllerConsistencyReplicaSet on free BETA AtomicFIFO
38 StaleControllerConsistencyStatefulSet on free BETA AtomicFIFO
38 StorageVersionAPI off free ALPHA APIServerIdentity
38 StrictIPCIDRValidation on locked GA -
38 TopologyAwareWorkloadScheduling off free BETA GenericWorkload
38 TopologyManagerPolicyOptions on locked GA -
38 TranslateStreamCloseWebsocketRequests on locked GA -
38 UnknownVersionInteroperabilityProxy on free BETA APIServerIdentity
38 UserNamespacesHostNetworkSupport off free ALPHA NodeDeclaredFeatures,UserNamespacesSupport
38 UserNamespacesSupport on locked GA -
38 VolumeAttributesClass on locked GA -
38 WatchCacheInitializationPostStartHook on locked GA -
38 WindowsGracefulNodeShutdown on free BETA GracefulNodeShutdown
38 WorkloadWithJob off free ALPHA GenericWorkload
"""


def _parse_windows(text: str) -> Windows:
    windows: Windows = {}
    for line in text.splitlines():
        if line and not line.startswith('#'):
            name, first, last = line.split()
            windows[name] = (int(first), None if last == '-' else int(last))
    return windows


KNOWN_FEATURE_GATES = _parse_windows(_WINDOWS)


def _parse_registries(text: str) -> Registries:
    registries: Registries = {}
    for line in text.splitlines():
        if line and not line.startswith('#'):
            minor, name, default, locked, stage, needs = line.split()
            needed = tuple(needs.split(',')) if needs != '-' else ()
            registries.setdefault(int(minor), {})[name] = (default == 'on', locked == 'locked', needed, stage)
    return registries


REGISTRIES = _parse_registries(_REGISTRIES)


def check_gate_values(gates: Mapping[str, bool], rules: KubeletRules, field: str) -> None:
    """Refuse what kubelet rules.version refuses of the values: a gate locked to its default set otherwise (from
    REGISTRIES where the release's registry is known, else rules.locked_gates), and, where the registry is known, an
    enabled gate (set, or on by default) that needs a disabled one."""
    registry = REGISTRIES.get(rules.minor)
    locked = (dict((name, spec[0]) for name, spec in registry.items() if spec[1]) if registry is not None
              else rules.locked_gates)
    for name in sorted(gates):
        if name in locked and gates[name] != locked[name]:
            raise KubenodeError('cannot set feature gate %s to %s, feature is locked to %s'
                                % (name, str(gates[name]).lower(), str(locked[name]).lower()),
                                field='%s.%s' % (field, name), value=gates[name])
    if registry is None:
        return

    def enabled(name: str) -> bool:
        if name in gates:
            return gates[name]
        spec = registry.get(name, (False, False, (), 'GA'))
        for special, stage in (('AllAlpha', 'ALPHA'), ('AllBeta', 'BETA')):
            if special in gates and spec[3] == stage and not spec[1]:
                return gates[special]
        return spec[0]

    broken = []
    for name in sorted(registry):
        disabled = [need for need in registry[name][2] if not enabled(need)]
        if enabled(name) and disabled:
            broken.append((name, disabled))
    if broken:
        turned_off = sorted(set(need for _name, needs in broken for need in needs) & set(gates))
        culprit = turned_off[0] if turned_off else broken[0][0]
        raise KubenodeError('%s (kubelet %s refuses to start; turn these off too, or leave %s on)' % (
            ', '.join('%s is enabled, but depends on features that are disabled: [%s]' % (name, ' '.join(needs))
                      for name, needs in broken), rules.version, culprit),
            field='%s.%s' % (field, culprit), value=gates.get(culprit))


def known_to(name: str, minor: int) -> bool:
    """Whether kubelet 1.<minor> knows the feature gate name."""
    window = KNOWN_FEATURE_GATES.get(name)
    return window is not None and window[0] <= minor and (window[1] is None or minor <= window[1])


def check_gate_names(gates: Mapping[str, bool], rules: KubeletRules, field: str, accepted: Collection[str] = ()) -> None:
    """Refuse a name kubelet rules.version does not know, as kubelet does at start-up.

    accepted: names taken as they are (already in the node's kubelet configuration, or listed in
    extra_feature_gates for a kubelet that knows more than this table).
    """
    for name in sorted(gates):
        if name not in accepted and not known_to(name, rules.minor):
            raise KubenodeError('unrecognized feature gate: %s (%s)' % (name, _why_unknown(name, rules)),
                                field=field, value=name)


def _why_unknown(name: str, rules: KubeletRules) -> str:
    window = KNOWN_FEATURE_GATES.get(name)
    if window and rules.minor < window[0]:
        return 'kubelet %s refuses to start with it: the gate exists from kubelet 1.%d' % (rules.version, window[0])
    if window and window[1] is not None:
        return 'kubelet %s refuses to start with it: the gate was removed after kubelet 1.%d' % (
            rules.version, window[1])
    known = sorted(n for n in KNOWN_FEATURE_GATES if known_to(n, rules.minor))
    same_letters = [n for n in known if n.lower() == name.lower()]
    close = same_letters or difflib.get_close_matches(name, known, n=1, cutoff=0.8)
    hint = '; did you mean %s?' % close[0] if close else ''
    return ('no kubelet release knows this name; kubelet %s refuses to start with it%s; a gate this table misses goes'
            ' in extra_feature_gates (role: node_allocatable_extra_feature_gates)' % (rules.version, hint))
