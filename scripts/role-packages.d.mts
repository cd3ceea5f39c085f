// Types of role-packages.mjs, for test/deploy/images.test.ts and test/images/.
export const ROLES: Record<'api' | 'worker-core' | 'worker-cpu' | 'worker-network' | 'worker-browser', { entry: string; pools: string[] }>;
export function loadedSpecifiers(source: string): { specifier: string; dynamic: boolean; sibling?: boolean }[];
export function packageOf(specifier: string): string;
export function directPackages(
  dir: string,
  role: keyof typeof ROLES,
  ext?: string,
  dependencies?: string[],
): { packages: Set<string>; modules: Set<string>; subpaths: Map<string, Set<string>> };
export function reachedDependencies(packageDir: string, subpaths: Set<string>): Set<string> | undefined;
export function lockClosure(
  lock: { packages: Record<string, unknown> },
  names: Iterable<string>,
  options?: { dependenciesOf?: Map<string, Set<string>> },
): Set<string>;
export function rolePackages(root: string, role: keyof typeof ROLES, options?: { dir?: string; ext?: string }): Set<string>;
export function pruneToRole(root: string, role: keyof typeof ROLES): string[];
export function pruneForeignBuilds(root: string, target?: string): string[];
export function pruneUnloadedFiles(root: string): number;
