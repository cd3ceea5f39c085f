//! Reading one setting from the environment: integers within bounds, booleans, one of a list, a
//! comma-separated list; what is wrong said as a ConfigError naming the variable.

export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

export function int(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

export function intIn(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = int(env, name, fallback, min);
  if (value > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${env[name]}"`);
  return value;
}

export function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

export function oneOf<const T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(values as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  return raw as T;
}

export function list(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
