//! The child process that password-hashing.ts hands Argon2id to (lib/low-priority-process.ts):
//! its hashes take the CPU that tool calls leave, not the calls' share.
import argon2 from 'argon2';
import { serveLowPriority } from '../../lib/low-priority-process.js';

type Argon2Options = Parameters<typeof argon2.hash>[1];

await serveLowPriority({
  hash: (password: string, options: Argon2Options) => argon2.hash(password, options),
  // A stored hash that is not a valid PHC string matches nothing.
  verify: (hash: string, password: string) => argon2.verify(hash, password).catch(() => false),
});
