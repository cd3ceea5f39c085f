//! What a password must be, as NIST SP 800-63B-4 asks of one that is the only factor: 15 to 256
//! characters of any kind, no composition rules, and not a value that is "commonly used, expected,
//! or compromised". The list of common and breached passwords is zxcvbn-ts's
//! (`@zxcvbn-ts/language-common`, ~49,000 from breach corpora), beside the words of this service and
//! of the person's own address and name; what passes them is then estimated (password-strength.ts,
//! in a child process: nothing leaves the machine) and refused under MIN_GUESSES_LOG10, the error
//! naming the pattern found so the person knows what to change. Only a password being chosen is
//! checked (sign-up, reset, change, an invitation's new sign-in): never one signing in.
import { dictionary } from '@zxcvbn-ts/language-common';
import { ServiceError } from '../../contracts/errors.js';
import { lowPriorityProcess, ProcessBusyError } from '../../lib/low-priority-process.js';
import type { Strength } from './password-strength.js';

export const MIN_PASSWORD_LENGTH = 15;
export const MAX_PASSWORD_LENGTH = 256;

/**
 * The fewest guesses (log10) the estimate must give a chosen password: 10^10. Sign-in lets an
 * attacker try one address 10 times in 15 minutes, then locks it for 15 (throttle.ts), however many
 * client addresses they use: 40 guesses an hour, about 3.5 x 10^5 a year. Guessing in the
 * estimator's order, they reach a password estimated at 10^10 after some 28,000 years; a decade of
 * it finds one such password with a chance of about 1 in 3,000. At zxcvbn's score 3 (10^8) that
 * chance is 1 in 30 per address, and its floor of 10^4 guesses for each further part puts any word,
 * year and filler ("basketball1998!") at 10^8 whatever the word: the estimate's score 4 is the bar.
 */
export const MIN_GUESSES_LOG10 = 10;

/** How a password is compared and hashed: Unicode NFKC, so the same characters typed on two keyboards match. */
export const normalizePassword = (password: string) => password.normalize('NFKC');

/** Characters as a person counts them: code points, not UTF-16 units (an emoji is one). */
export const passwordLength = (password: string) => [...normalizePassword(password)].length;

let common: Set<string> | undefined;
const commonPasswords = () => (common ??= new Set((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase())));

const SERVICE_WORDS = ['utility tools', 'utilitytools', 'utility-tools', 'utility_tools'];

/** One character over and over, or a run up or down an alphabet or the digits ("abcdefghijklmnop", "987654321..."). */
function isRepetitiveOrSequential(password: string): boolean {
  const points = [...password.toLowerCase()].map((c) => c.codePointAt(0)!);
  if (new Set(points).size === 1) return true;
  const step = points[1]! - points[0]!;
  return Math.abs(step) === 1 && points.every((p, i) => i === 0 || p - points[i - 1]! === step);
}

/**
 * Estimates waiting in the strength child at most, per API process. One takes tens of milliseconds,
 * but up to a second for a long run of digits (each read as a possible letter); sign-up, reset and
 * change are rate-limited per client address, not in all, so many addresses at once could otherwise
 * queue minutes of estimates ahead of every new person. Past it: 503, try again. Far above what
 * people choosing passwords at once ask of one replica.
 */
export const STRENGTH_MAX_PENDING = 64;

const strength = lowPriorityProcess(import.meta.url, 'password-strength-process', { maxPending: STRENGTH_MAX_PENDING });

/**
 * Why `password` may not be used, or null when it may. `context` holds what an attacker would try
 * first for this person: their address and name.
 */
export async function passwordProblem(
  password: string,
  context: { email?: string | null; name?: string | null } = {},
): Promise<string | null> {
  const length = passwordLength(password);
  if (length < MIN_PASSWORD_LENGTH)
    return `must be at least ${MIN_PASSWORD_LENGTH} characters (it has ${length}); a few words make a strong one`;
  if (length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters`;
  const folded = normalizePassword(password).toLowerCase();
  if (commonPasswords().has(folded)) return 'is on a list of common or breached passwords; choose another';
  if (isRepetitiveOrSequential(folded)) return 'is one character repeated or a simple sequence; choose another';
  const email = context.email?.toLowerCase();
  const guessable = [...SERVICE_WORDS, email, email?.split('@')[0], context.name?.toLowerCase()].filter(
    (w): w is string => !!w && w.length >= 3,
  );
  const squeezed = folded.replace(/[\s\d\W_]+/gu, '');
  if (guessable.some((w) => folded === w || squeezed === w.replace(/[\s\d\W_]+/gu, ''))) {
    return "is the service's name or your own address or name; choose another";
  }
  const estimate = await strength
    .call<Strength>('estimate', normalizePassword(password), [...guessable, ...(context.name?.split(/\s+/) ?? [])])
    .catch((err: unknown) => {
      if (err instanceof ProcessBusyError)
        throw new ServiceError('unavailable', 'Too many new passwords are being checked right now; try again in a few seconds.');
      throw err;
    });
  if (estimate.guessesLog10 < MIN_GUESSES_LOG10) {
    return `is too easy to guess: ${estimate.pattern ?? 'a pattern people often choose'}. A few words that do not belong together make a strong one`;
  }
  return null;
}
