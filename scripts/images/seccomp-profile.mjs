#!/usr/bin/env node
//! The seccomp profile of the two roles that sandbox what they run (deploy/seccomp/sandboxes.json):
//! the container runtime's default profile, plus the namespace calls their sandboxes make and no
//! other. Chromium isolates each renderer in new user, PID and network namespaces; the cpu worker
//! starts LibreOffice in new user, network and PID namespaces (no network while it reads a
//! customer's document). The default refuses every namespace to a process without CAP_SYS_ADMIN,
//! which these containers never have, so both sandboxes fail under it.
//!
//! Made from Docker Engine's own default (`profiles/seccomp/default.json` of the moby module the
//! Debian engine is built from, through the Go module proxy), resolved for a container with no
//! capabilities, and written in the OCI runtime spec's form: containerd reads a Kubernetes
//! `Localhost` profile in that form (Docker's `includes`/`excludes` conditions would be ignored
//! there, turning the capability-gated rules into plain allows), and Docker reads it as well.
//!
//! Added: `clone` and `unshare` with new user, PID or network namespaces (never mount, UTS, IPC or
//! cgroup ones), and `chroot` (Chromium's sandbox roots each renderer in an empty directory; the
//! kernel still demands CAP_SYS_CHROOT, which a process has only inside its own user namespace).
//!
//! CLI: `node scripts/images/seccomp-profile.mjs [--check]` writes the file, or with --check exits 1
//! when the file is not what the recipe makes. Node built-ins only.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { moduleDir } from '../go-build.mjs';

/** The moby release Debian 12's docker.io (20.10.24) is built from. */
export const MOBY_MODULE = { module: 'github.com/docker/docker', version: '20.10.24+incompatible' };
export const PROFILE_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../deploy/seccomp/sandboxes.json');

/** Linux clone flags (include/uapi/linux/sched.h). */
export const CLONE = {
  NEWNS: 0x00020000,
  NEWCGROUP: 0x02000000,
  NEWUTS: 0x04000000,
  NEWIPC: 0x08000000,
  NEWUSER: 0x10000000,
  NEWPID: 0x20000000,
  NEWNET: 0x40000000,
};
/** The namespaces the sandboxes never create: a call naming any of them stays refused. */
export const REFUSED_NAMESPACES = CLONE.NEWNS | CLONE.NEWCGROUP | CLONE.NEWUTS | CLONE.NEWIPC;

/** The architectures the profile is for (Docker's names, and the SCMP names the runtime spec takes). */
const ARCHES = { amd64: ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', 'SCMP_ARCH_X32'], arm64: ['SCMP_ARCH_AARCH64', 'SCMP_ARCH_ARM'] };
const DOCKER_ARCHES = new Set(['amd64', 'x86', 'x32', 'arm64', 'arm']);

/** Whether a rule of Docker's profile applies to a container with no capabilities on these architectures. */
function applies(rule) {
  const { includes = {}, excludes = {} } = rule;
  if (includes.caps?.length) return false;
  if (includes.arches?.length && !includes.arches.some((a) => DOCKER_ARCHES.has(a))) return false;
  if (excludes.arches?.length && [...DOCKER_ARCHES].every((a) => excludes.arches.includes(a))) return false;
  return true;
}

const onlyTheseNamespaces = (index) => [{ index, value: REFUSED_NAMESPACES, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' }];

/** The profile, from Docker's default (`defaultProfile`, its parsed JSON). */
export function sandboxProfile(defaultProfile) {
  const syscalls = defaultProfile.syscalls.filter(applies).map(({ names, action, args, errnoRet }) => ({
    names,
    action,
    ...(args?.length ? { args: args.map(({ index, value, valueTwo = 0, op }) => ({ index, value, valueTwo, op })) } : {}),
    ...(errnoRet !== undefined ? { errnoRet } : {}),
  }));
  syscalls.push(
    { names: ['clone', 'unshare'], action: 'SCMP_ACT_ALLOW', args: onlyTheseNamespaces(0) },
    { names: ['chroot'], action: 'SCMP_ACT_ALLOW' },
  );
  return { defaultAction: defaultProfile.defaultAction, architectures: Object.values(ARCHES).flat(), syscalls };
}

export async function generatedProfileText() {
  const dir = await moduleDir(MOBY_MODULE.module, MOBY_MODULE.version);
  const defaultProfile = JSON.parse(readFileSync(path.join(dir, 'profiles', 'seccomp', 'default.json'), 'utf8'));
  return `${JSON.stringify(sandboxProfile(defaultProfile), null, 2)}\n`;
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const text = await generatedProfileText();
  if (process.argv[2] === '--check') {
    const same = readFileSync(PROFILE_FILE, 'utf8') === text;
    console.log(
      same ? 'deploy/seccomp/sandboxes.json is what its recipe makes' : 'deploy/seccomp/sandboxes.json differs from what its recipe makes',
    );
    process.exit(same ? 0 : 1);
  }
  writeFileSync(PROFILE_FILE, text);
  console.log(`wrote ${path.relative(process.cwd(), PROFILE_FILE)}`);
}
