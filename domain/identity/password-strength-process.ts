//! The child process that estimates a chosen password's strength (password-strength.ts) at low CPU
//! priority (lib/low-priority-process.ts): the estimate's lists and search stay off the API's event
//! loop, and apart from the hashing process, so sign-ins never queue behind it.
import { serveLowPriority } from '../../lib/low-priority-process.js';
import { estimateStrength } from './password-strength.js';

await serveLowPriority({
  estimate: async (password: string, userInputs: string[]) => estimateStrength(password, userInputs),
});
