//! How many guesses a password would take an attacker who knows how people choose them, by
//! zxcvbn-ts's estimator (repeats, rows of keys, sequences, years and dates, dictionary words with
//! l33t and reversed, the common and English lists), and what it found, in words a person can act
//! on. Pure and CPU-bound (tens to hundreds of milliseconds): the service runs it in a child
//! process (password-strength-process.ts), once per chosen password, never at sign-in.
import { ZxcvbnFactory, type MatchExtended } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as english from '@zxcvbn-ts/language-en';

export interface Strength {
  /** log10 of the estimated guesses. */
  guessesLog10: number;
  /** What makes it guessable, as a phrase ("a word repeated and a year"); null when nothing was found. */
  pattern: string | null;
}

/**
 * Only the first 100 characters are estimated: the search grows faster than the length (a 256-digit
 * password took about 2 s on an idle core, 100 digits 1 s), and a chosen password may be 256 long.
 * A password whose first 100 characters are guessable is refused; one that is strong in them is
 * strong whatever follows.
 */
const ESTIMATED_LENGTH = 100;

let words: ZxcvbnFactory | undefined;
/** The estimator with its lists (about a second to build: once per process, on first use). */
const estimator = () =>
  (words ??= new ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...english.dictionary },
    graphs: common.adjacencyGraphs,
    translations: english.translations,
    maxLength: ESTIMATED_LENGTH,
  }));

let shapes: ZxcvbnFactory | undefined;
/** Keyboards only, no lists: what a common password is made of ("qwertyuiop" is a row of keys). */
const shapesOnly = () => (shapes ??= new ZxcvbnFactory({ graphs: common.adjacencyGraphs, maxLength: ESTIMATED_LENGTH }));

const NAME_LISTS = new Set(['firstnames-en', 'lastnames-en']);

/** One pattern the estimator matched, in words; null for the parts it had to guess character by character. */
function describe(match: MatchExtended, depth = 0): string | null {
  switch (match.pattern) {
    case 'repeat': {
      const base = typeof match.baseToken === 'string' ? match.baseToken : match.baseToken.join('');
      if ([...base].length === 1) return 'one character repeated';
      const inner = depth === 0 ? shapeOf(base, depth + 1) : null;
      return inner === 'a row of keys'
        ? 'a row of keys repeated'
        : /^\p{L}+$/u.test(base)
          ? 'a word repeated'
          : 'a group of characters repeated';
    }
    case 'spatial':
      return match.turns <= 1 ? 'a row of keys' : 'neighbouring keys in a pattern';
    case 'sequence':
      return 'a sequence like abc or 123';
    case 'wordSequence':
      return new Set((match.words as string[]).map((w) => w.toLowerCase())).size === 1
        ? 'a word repeated'
        : 'a run of words in order (numbers, days, months)';
    case 'regex':
      return match.regexName === 'recentYear' ? 'a year' : 'a common pattern';
    case 'date':
      return 'a date';
    case 'dictionary': {
      let what =
        match.dictionaryName === 'userInputs'
          ? "your address, your name or the service's name"
          : NAME_LISTS.has(match.dictionaryName)
            ? 'a name'
            : match.dictionaryName === 'passwords-common'
              ? ((depth === 0 ? shapeOf(match.token, depth + 1) : null) ?? 'a common password')
              : 'a dictionary word';
      if (match.reversed) what += ' spelled backwards';
      if (match.l33t) what += ' with symbols for letters';
      return what;
    }
    default:
      return null; // bruteforce, separator
  }
}

/** A common password that is wholly a keyboard row, a sequence or a repeat, said as that. */
function shapeOf(token: string, depth: number): string | null {
  const [only, ...rest] = shapesOnly().check(token).sequence;
  if (!only || rest.length > 0 || only.pattern === 'bruteforce') return null;
  return describe(only, depth);
}

const joined = (parts: string[]) => (parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`);

/** The estimate of `password`, `userInputs` (the person's address and name, the service's name) counted as its first guesses. */
export function estimateStrength(password: string, userInputs: string[] = []): Strength {
  const result = estimator().check(password, userInputs);
  const parts = [...new Set(result.sequence.map((m) => describe(m)).filter((p): p is string => p !== null))];
  return { guessesLog10: result.guessesLog10, pattern: parts.length ? joined(parts) : null };
}
