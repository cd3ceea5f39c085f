//! The tool registry: every tool listed in domain/tools has a handler in its pool's map and every
//! handler a listing (the compiler checks the same from the types; this checks what runs), and a
//! reader who knows a tool's name finds its definition (with its schemas), handler and test by that name.
import { existsSync, readdirSync } from 'node:fs';
import test from 'ava';
import { BROWSER_HANDLERS } from '../../activities/browser/index.js';
import { CPU_HANDLERS } from '../../activities/cpu/index.js';
import { NETWORK_HANDLERS } from '../../activities/network/index.js';
import { CATALOGUE, findTool, toolsOfPool } from '../../domain/tools/catalogue.js';
import { TOOLS } from '../../domain/tools/list.js';
import { publishedToolSchemas } from '../../domain/tools/schemas.js';
import type { ToolPool } from '../../contracts/temporal-names.js';

const ROOT = new URL('../../', import.meta.url);
const HANDLERS: Record<ToolPool, object> = { cpu: CPU_HANDLERS, network: NETWORK_HANDLERS, browser: BROWSER_HANDLERS };

for (const pool of Object.keys(HANDLERS) as ToolPool[]) {
  test(`the ${pool} pool has a handler for each of its listed tools and none for anything else`, (t) => {
    t.deepEqual(
      Object.keys(HANDLERS[pool]).sort(),
      toolsOfPool(pool)
        .map((tool) => tool.name)
        .sort(),
    );
  });
}

/** Whether the value or anything in it has a symbol-keyed property. */
const hasSymbolKeys = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && (Object.getOwnPropertySymbols(v).length > 0 || Object.values(v).some(hasSymbolKeys));

test('every tool is listed once, its schemas published as closed objects named for it', (t) => {
  t.is(CATALOGUE.size, TOOLS.length);
  for (const name of CATALOGUE.keys()) {
    const { input, output } = publishedToolSchemas(name);
    t.like(input, { title: `${name} input`, type: 'object', additionalProperties: false }, name);
    t.like(output, { title: `${name} output`, type: 'object', additionalProperties: false }, name);
    // Published as plain JSON: TypeBox's symbol keys stay in the declaration.
    t.true(hasSymbolKeys(CATALOGUE.get(name)!.schemas.input), name);
    t.false(hasSymbolKeys(input) || hasSymbolKeys(output), name);
  }
});

/**
 * A tool's test files: `<tool>.test.ts`, or its parts `<tool>-<part>.test.ts` when one file grew too
 * long (a part of another tool whose name begins with this one's is that tool's).
 */
function testFilesOf(name: string): string[] {
  const longer = TOOLS.map((t) => t.name).filter((other) => other.startsWith(`${name}-`));
  return readdirSync(new URL('test/tools/', ROOT)).filter(
    (f) =>
      (f === `${name}.test.ts` || (f.startsWith(`${name}-`) && f.endsWith('.test.ts'))) &&
      !longer.some((o) => f.startsWith(`${o}.`) || f.startsWith(`${o}-`)),
  );
}

for (const tool of TOOLS) {
  test(`${tool.name}: definition, handler and test are found by its name`, async (t) => {
    for (const file of [`domain/tools/${tool.name}.ts`, `activities/tools/${tool.name}.ts`]) {
      t.true(existsSync(new URL(file, ROOT)), `${file} is missing`);
    }
    t.not(testFilesOf(tool.name).length, 0, `test/tools/${tool.name}.test.ts (or its parts, ${tool.name}-<part>.test.ts) is missing`);
    // The definition module by the tool's name is the one that defines it.
    const definitions = Object.values(await import(`../../domain/tools/${tool.name}.js`)).filter((v) => v === tool);
    t.is(definitions.length, 1);
  });

  test(`${tool.name}: secret fields are input fields, and the precheck is served as listed`, (t) => {
    const input = publishedToolSchemas(tool.name).input as { properties?: Record<string, unknown> };
    for (const field of tool.secretFields ?? []) t.true(Object.hasOwn(input.properties ?? {}, field), field);
    t.is<unknown, unknown>(findTool(tool.name)?.precheck, tool.precheck);
  });
}
