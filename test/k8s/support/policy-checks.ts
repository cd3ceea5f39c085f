//! What the NetworkPolicies must decide on the node (node.test.ts): for each, a connection they
//! refuse beside one to the same port they allow, from probe pods made outside the service's
//! labels (`elsewhere`) and in the `monitoring` namespace.
import type { ControlPlane } from '../../../scripts/stack/control-plane.js';
import { getJson } from './get-json.js';
import { podsOf, probePod, reachable } from './pods.js';
import { NAMESPACE } from './real-node.js';

export interface PolicyCheck {
  what: string;
  refused: Promise<string>;
  allowed: Promise<string>;
}

/** Starts the probe pods (from `image`) and the three checks, each reading both of its connections. */
export async function policyChecks(plane: ControlPlane, image: string): Promise<PolicyCheck[]> {
  const probeIp = await probePod(plane, image, 'elsewhere', 'probe');
  await probePod(plane, image, 'monitoring', 'scraper');
  const [core, cpu, api] = await Promise.all(['worker-core', 'worker-cpu', 'api'].map((role) => podsOf(plane, role)));
  const apiService = (await getJson(plane, '-n', NAMESPACE, 'service/api')).spec.clusterIP as string;
  const [coreIp, apiIp] = [core![0].status.podIP as string, api![0].status.podIP as string];
  return [
    {
      what: "a pod without the API's labels cannot reach a worker's operator port (the monitoring namespace can)",
      refused: reachable(plane, 'probe', coreIp, 9464, { namespace: 'elsewhere' }),
      allowed: reachable(plane, 'scraper', coreIp, 9464, { namespace: 'monitoring' }),
    },
    {
      what: "a pool's pod cannot reach the API, by its pod or its Service (another pod can)",
      refused: Promise.all([
        reachable(plane, core![0].metadata.name, apiIp, 8080),
        reachable(plane, core![0].metadata.name, apiService, 8080),
      ]).then((r) => (r.includes('open') ? 'open' : r[0]!)),
      allowed: reachable(plane, 'probe', apiIp, 8080, { namespace: 'elsewhere' }),
    },
    {
      what: 'a worker cannot reach a private address its policy refuses (another pod can)',
      refused: reachable(plane, cpu![0].metadata.name, probeIp, 8080),
      allowed: reachable(plane, 'scraper', probeIp, 8080, { namespace: 'monitoring' }),
    },
  ];
}
