//! What a real node's parts are told (scripts/stack/k8s-node.ts, k8s-host.ts): containerd's, the CNI bridge's,
//! the kubelet's and kube-proxy's configuration, as pure functions of the node's options.
import path from 'node:path';

export interface NodeTools {
  kubelet: string;
  kubeProxy: string;
  crictl: string;
  kubeRouter: string;
}

/** From the benchmarking range (RFC 2544), which no policy here excludes and no one routes: on the node's bridge only. */
export const PUBLIC_STAND_IN = '198.18.0.1';

export interface NodeOptions {
  /** The node's own directory: containerd's root and state, the kubelet's, CNI's, the pause image. */
  dir: string;
  name: string;
  /** The pods' /24 (`10.250.0.0/24`): its `.1` is the bridge and the pods' gateway (and the node's address, unless `address`). */
  podCidr: string;
  /** Every node's pods (`10.250.0.0/16`): pods reach the other nodes' pods through this host. */
  clusterCidr: string;
  /** The bridge the node's pods are on (`ut-pods0`); one per node. */
  bridge: string;
  /** The node's address (InternalIP), when not its bridge's `.1`: a node joining the first gives the first's (scripts/stack/k8s-host.ts). */
  address?: string;
  /**
   * The cgroup the node's pods go under (`/utility-tools-node-1`): each kubelet owns its `kubepods`
   * (neither takes the other's pods for orphans), and a stopped node removes its own.
   */
  cgroupRoot: string;
  /** The control plane's Service range: the pods' route to it goes through this host (kube-proxy). */
  serviceCidr: string;
  kubeconfig: string;
  /** The CA whose client certificates the kubelet accepts (the API server's, for logs and exec). */
  clientCaFile: string;
  tools: NodeTools;
  /** Seccomp profiles for `Localhost` pods, by the path they are named with. */
  seccompProfiles: Record<string, string>;
}

export const PAUSE_IMAGE = 'utility-tools/pause:local';

export function containerdConfig(dir: string, socket: string): string {
  return `version = 2
root = "${dir}/containerd/root"
state = "${dir}/containerd/state"
[grpc]
  address = "${socket}"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "docker.io/${PAUSE_IMAGE}"
  # This machine grants no CAP_SYS_RESOURCE: runc cannot give the sandbox its -998.
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "${dir}/cni/net.d"
`;
}

/**
 * A bridge on the pods' /24, addresses from host-local (kept in the node's folder), no masquerade and
 * no default route: pods reach each other (the other nodes' through this host), this host, the Service
 * range (kube-proxy's rules on the host) and the public stand-in, nothing beyond.
 */
export function cniConfig(options: NodeOptions): string {
  const { dir, bridge, podCidr, clusterCidr, serviceCidr } = options;
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: 'utility-tools-pods',
    plugins: [
      {
        type: 'bridge',
        bridge,
        isGateway: true,
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: podCidr }]],
          routes: [{ dst: clusterCidr }, { dst: serviceCidr }, { dst: `${PUBLIC_STAND_IN}/32` }],
          dataDir: path.join(dir, 'cni', 'ipam'),
        },
      },
      { type: 'portmap', capabilities: { portMappings: true } },
      { type: 'firewall' },
    ],
  });
}

export function kubeletConfig(options: NodeOptions, socket: string, ports: { kubelet: number; healthz: number }, address: string): string {
  return JSON.stringify({
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address,
    port: ports.kubelet,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: ports.healthz,
    authentication: { anonymous: { enabled: false }, webhook: { enabled: false }, x509: { clientCAFile: options.clientCaFile } },
    authorization: { mode: 'AlwaysAllow' },
    containerRuntimeEndpoint: `unix://${socket}`,
    cgroupDriver: 'cgroupfs',
    failSwapOn: false,
    failCgroupV1: false,
    podLogsDir: path.join(options.dir, 'pod-logs'),
    // Nothing here is evicted for a host's disk or memory: the test's pods are what it measures.
    evictionHard: { 'memory.available': '1%', 'nodefs.available': '1%', 'imagefs.available': '1%' },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    serializeImagePulls: false,
    resolvConf: '/etc/resolv.conf',
    maxPods: 40,
    cgroupRoot: options.cgroupRoot,
  });
}

export function kubeProxyConfig(
  options: Pick<NodeOptions, 'kubeconfig' | 'name' | 'clusterCidr'>,
  ports: { healthz: number; metrics: number },
): string {
  return JSON.stringify({
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    clientConnection: { kubeconfig: options.kubeconfig },
    hostnameOverride: options.name,
    mode: 'iptables',
    clusterCIDR: options.clusterCidr,
    healthzBindAddress: `127.0.0.1:${ports.healthz}`,
    metricsBindAddress: `127.0.0.1:${ports.metrics}`,
    // No route_localnet, no conntrack tables resized: kube-proxy leaves those host settings alone.
    iptables: { localhostNodePorts: false },
    conntrack: { maxPerCore: 0 },
  });
}
