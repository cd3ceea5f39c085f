//! deploy/seccomp/sandboxes.json, the profile of the roles that sandbox what they run: the runtime's
//! default resolved for a container with no capabilities, in the runtime spec's form (a Kubernetes
//! `Localhost` profile is read as such), plus new user, PID and network namespaces and chroot; never
//! the mount, UTS, IPC or cgroup namespaces, and nothing the default grants only to CAP_SYS_ADMIN.
//! (`npm run test:images` checks the file is what its recipe makes from the engine's own default.)
import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CLONE, REFUSED_NAMESPACES, sandboxProfile } from '../../scripts/images/seccomp-profile.mjs';

interface Rule {
  names: string[];
  action: string;
  args?: Array<{ index: number; value: number; valueTwo: number; op: string }>;
  includes?: unknown;
  excludes?: unknown;
}
const profile = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../deploy/seccomp/sandboxes.json'), 'utf8')) as {
  defaultAction: string;
  architectures: string[];
  syscalls: Rule[];
};
const allows = (name: string) => profile.syscalls.filter((r) => r.action === 'SCMP_ACT_ALLOW' && r.names.includes(name));

test('it refuses what it does not list, for the architectures it names, in the runtime spec form', (t) => {
  t.is(profile.defaultAction, 'SCMP_ACT_ERRNO');
  t.true(profile.architectures.includes('SCMP_ARCH_X86_64'));
  t.true(
    profile.syscalls.every((r) => r.includes === undefined && r.excludes === undefined),
    'no Docker-only conditions',
  );
  t.true(allows('read').length > 0 && allows('openat').length > 0);
});

test('clone and unshare may make user, PID and network namespaces, never mount, UTS, IPC or cgroup ones', (t) => {
  for (const name of ['clone', 'unshare']) {
    const rules = allows(name);
    t.true(rules.length > 0, name);
    for (const rule of rules) {
      t.truthy(rule.args?.length, `${name} is allowed only with conditions on its flags`);
      for (const arg of rule.args ?? []) {
        t.is(arg.op, 'SCMP_CMP_MASKED_EQ');
        t.is(arg.valueTwo, 0);
        t.is(arg.value & REFUSED_NAMESPACES, REFUSED_NAMESPACES, `${name}: every refused namespace is in its mask`);
      }
    }
  }
  const mask = allows('unshare')[0]!.args![0]!.value;
  for (const flag of [CLONE.NEWUSER, CLONE.NEWPID, CLONE.NEWNET]) t.is(mask & flag, 0, 'a namespace the sandboxes need passes');
});

test("nothing of what the default grants only to CAP_SYS_ADMIN, and no other capability's calls", (t) => {
  for (const name of ['mount', 'umount2', 'setns', 'bpf', 'pivot_root', 'open_by_handle_at', 'init_module', 'reboot', 'acct'])
    t.deepEqual(allows(name), [], name);
  t.is(
    profile.syscalls.find((r) => r.names.includes('clone3'))?.action,
    'SCMP_ACT_ERRNO',
    'clone3 answers ENOSYS: glibc falls back to clone',
  );
});

test('the recipe drops capability-gated rules, keeps arch-specific ones for its architectures, and adds the sandboxes calls', (t) => {
  const made = sandboxProfile({
    defaultAction: 'SCMP_ACT_ERRNO',
    syscalls: [
      { names: ['read'], action: 'SCMP_ACT_ALLOW', args: [] },
      { names: ['mount', 'unshare'], action: 'SCMP_ACT_ALLOW', args: [], includes: { caps: ['CAP_SYS_ADMIN'] } },
      { names: ['arch_prctl'], action: 'SCMP_ACT_ALLOW', args: [], includes: { arches: ['amd64'] } },
      { names: ['s390_runtime_instr'], action: 'SCMP_ACT_ALLOW', args: [], includes: { arches: ['s390x'] } },
    ],
  }) as { syscalls: Rule[] };
  const names = made.syscalls.flatMap((r) => r.names);
  t.true(names.includes('read') && names.includes('arch_prctl') && names.includes('chroot'));
  t.false(names.includes('mount') || names.includes('s390_runtime_instr'));
  t.true(made.syscalls.filter((r) => r.names.includes('unshare')).every((r) => r.args?.length === 1));
});
