//! A node's pod bridge (scripts/stack/k8s-node.ts) keeps its MAC while pods come and go: the pods'
//! gateway is the bridge, and a gateway whose MAC changed under them is lost until their ARP entries
//! expire. Two ports stand in for two pods; the one with the lower MAC leaves.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { makeBridge } from '../../scripts/stack/k8s-node.js';

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
const macOf = (link: string) => readFileSync(`/sys/class/net/${link}/address`, 'utf8').trim();

/** Two pods' ports on `bridge`, MACs ...:01 and ...:02; the bridge's MAC once the ...:01 port has left. */
function afterLowestPortLeaves(bridge: string): { before: string; after: string } {
  for (const n of [1, 2]) {
    ip('link', 'add', `${bridge}-p${n}`, 'type', 'veth', 'peer', 'name', `${bridge}-q${n}`);
    ip('link', 'set', `${bridge}-p${n}`, 'address', `02:00:00:00:00:0${n}`);
    ip('link', 'set', `${bridge}-p${n}`, 'master', bridge, 'up');
  }
  const before = macOf(bridge);
  ip('link', 'del', `${bridge}-p1`);
  return { before, after: macOf(bridge) };
}

const removeLinks = (bridge: string) => {
  for (const link of [`${bridge}-p1`, `${bridge}-p2`, bridge])
    try {
      ip('link', 'del', link);
    } catch {
      // Not there.
    }
};

test('a pod leaving its node bridge leaves the gateway MAC the other pods know', async (t) => {
  const bridge = 'ut-macpin';
  t.teardown(() => removeLinks(bridge));
  await makeBridge(bridge, '10.251.9.1/24');
  const pinned = macOf(bridge);
  const { before, after } = afterLowestPortLeaves(bridge);
  t.is(before, pinned);
  t.is(after, pinned);
});

test('the control: a bridge left to the kernel takes its lowest port MAC, and changes when that port leaves', (t) => {
  const bridge = 'ut-macfree';
  t.teardown(() => removeLinks(bridge));
  ip('link', 'add', bridge, 'type', 'bridge');
  const { before, after } = afterLowestPortLeaves(bridge);
  t.is(before, '02:00:00:00:00:01');
  t.is(after, '02:00:00:00:00:02');
});
