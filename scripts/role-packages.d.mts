// Types of role-packages.mjs, for test/deploy/images.test.ts.
export const ROLES: Record<'api' | 'worker-core' | 'worker-cpu' | 'worker-network' | 'worker-browser', { entry: string; pools: string[] }>;
export function loadedSpecifiers(source: string): { specifier: string; dynamic: boolean; sibling?: boolean }[];
export function packageOf(specifier: string): string;
export function directPackages(
  dir: string,
  role: keyof typeof ROLES,
  ext?: string,
  dependencies?: string[],
): { packages: Set<string>; modules: Set<string> };
export function lockClosure(lock: { packages: Record<string, unknown> }, names: Iterable<string>): Set<string>;
export function rolePackages(root: string, role: keyof typeof ROLES, options?: { dir?: string; ext?: string }): Set<string>;
export function pruneToRole(root: string, role: keyof typeof ROLES): string[];
