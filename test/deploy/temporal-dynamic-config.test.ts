//! The Temporal server runs with the same dynamic config locally (the dev server's flags) and in
//! the compose deployment (deploy/temporal-dynamic-config.yaml): a setting measured on one holds
//! on the other only if both have it.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { TEMPORAL_DYNAMIC_CONFIG } from '../../scripts/stack/services.js';

/** `key:` then `  - value: v` lines of the compose file, as `key=v` (comments skipped). */
function composeSettings(yaml: string): string[] {
  const settings: string[] = [];
  let key: string | undefined;
  for (const line of yaml.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const keyLine = /^([\w.]+):\s*$/.exec(line);
    const valueLine = /^\s+- value:\s*(\S+)\s*$/.exec(line);
    if (keyLine) key = keyLine[1];
    else if (valueLine && key) settings.push(`${key}=${valueLine[1]}`);
    else throw new Error(`unexpected line in the dynamic config: ${line}`);
  }
  return settings;
}

test('the dev server and the compose deployment run the same dynamic config', (t) => {
  const compose = composeSettings(readFileSync(new URL('../../deploy/temporal-dynamic-config.yaml', import.meta.url), 'utf8'));
  t.deepEqual([...compose].sort(), [...TEMPORAL_DYNAMIC_CONFIG].sort());
  t.true(compose.includes('matching.numTaskqueueReadPartitions=1'));
});
