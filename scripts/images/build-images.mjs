//! Builds the five role images from the one Dockerfile (`docker build --target <role>`) on a base
//! given as the `NODE_IMAGE` build argument, and reads back what each one is: its size and layers.
//! The classic builder (`DOCKER_BUILDKIT=0`) takes a local base without asking a registry; it builds
//! every stage before the target, so the first role pays for the shared stages and the others reuse
//! them from its cache. Node built-ins only.
import { docker } from './docker-engine.mjs';

/** The roles, as the Dockerfile's targets name them. */
export const ROLES = ['api', 'worker-core', 'worker-cpu', 'worker-network', 'worker-browser'];

/**
 * What each role's image may weigh on a Debian 12 base with Node 24 (about 260 MB of it), in MB
 * of 10^6 bytes as Docker counts them. docs/OPERATING.md lists them with the sizes measured.
 */
export const BUDGET_MB = { api: 450, 'worker-core': 450, 'worker-network': 500, 'worker-cpu': 1400, 'worker-browser': 1400 };

/** As docker-compose.yml and the Kubernetes manifests name them. */
export const imageName = (role, tag) => `utility-tools-${role}:${tag}`;

/** Size in bytes (the base included) and layer count of a built image. */
export async function imageFacts(image) {
  const [size, layers] = (await docker(['image', 'inspect', '--format', '{{.Size}} {{len .RootFS.Layers}}', image])).trim().split(' ');
  return { bytes: Number(size), layers: Number(layers) };
}

/**
 * Builds every role (`tag` names them all), on `base`. Resolves with each role's image, build
 * time, size and layers.
 * @param {{ root: string, base: string, tag: string, log: (line: string) => void }} options
 */
export async function buildImages({ root, base, tag, log }) {
  const built = [];
  for (const role of ROLES) {
    const image = imageName(role, tag);
    const started = Date.now();
    // --network host: an engine without a bridge (docker-engine.mjs) gives RUN steps the host's network.
    await docker(['build', '--network', 'host', '--build-arg', `NODE_IMAGE=${base}`, '--target', role, '--tag', image, '.'], { cwd: root });
    const seconds = (Date.now() - started) / 1000;
    const facts = await imageFacts(image);
    log(`built ${image} in ${seconds.toFixed(0)} s: ${(facts.bytes / 1e6).toFixed(0)} MB, ${facts.layers} layers`);
    built.push({ role, image, seconds, ...facts });
  }
  return built;
}
