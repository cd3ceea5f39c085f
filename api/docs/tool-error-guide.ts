//! The error guide's entries for what a tool's own run refuses or fails with (the target, the
//! source, the hash, the destination, the upstream, the deadline): error-guide.ts holds the rest
//! and the one table both make.
import { ADDRESS_REASONS } from '../../lib/address-class.js';
import { INPUT_REASONS } from '../../lib/target-host.js';
import type { ErrorCode } from '../../contracts/errors.js';
import type { ErrorGuide } from './error-guide-entry.js';

/** The target guard's `reason` values, which clients may branch on: every one, from the guard's own lists. */
const TARGET_REASONS = [...ADDRESS_REASONS, ...INPUT_REASONS];

/** What a destination's bucket said when it refused: both destination problems carry it. */
const S3_REASON = { reason: "S3's own error code and message, or what failed on the way to it." };

type ToolErrorCode = Extract<
  ErrorCode,
  | 'target_not_allowed'
  | 'destination_unusable'
  | 'port_not_allowed'
  | 'source_too_large'
  | 'unsupported_source'
  | 'hash_too_costly'
  | 'invalid_hash'
  | 'destination_error'
  | 'upstream_error'
  | 'tool_timeout'
>;

export const TOOL_ERROR_GUIDE: Readonly<Record<ToolErrorCode, ErrorGuide>> = {
  target_not_allowed: {
    when:
      'The address the tool would connect to is private, loopback, link-local, reserved, multicast or a cloud metadata address: ' +
      'given directly, resolved by DNS, or reached through a redirect.',
    action: 'Use a public address. Operators of a private deployment can let chosen ranges through with TARGET_ALLOWLIST.',
    members: { reason: `Which rule refused the target: ${TARGET_REASONS.join(', ')}.` },
    example: { detail: 'The target resolves to 10.0.0.7, a private address.', members: { reason: 'private' } },
  },
  destination_unusable: {
    when:
      'A destination was being created and its bucket refused the test upload the service makes first: the bucket does not exist, ' +
      'the credentials are wrong or may not write there, or the endpoint could not be reached. Nothing was created.',
    action:
      'Fix what S3 names in reason (bucket name, region, endpoint, the key pair and its write permission), then create the destination again.',
    members: S3_REASON,
    example: {
      detail: 'The bucket refused the test upload: AccessDenied: Access Denied',
      members: { reason: 'AccessDenied: Access Denied' },
    },
  },
  port_not_allowed: {
    when: 'smtp-test was asked to connect to a port other than 25, 465, 587 or 2525.',
    action: 'Use one of the mail submission and relay ports: 25, 465, 587 or 2525.',
    example: { detail: 'Port 8025 is not allowed; use 25, 465, 587 or 2525.' },
  },
  source_too_large: {
    when:
      "The fetched file is over the tool's size or pixel limit: pages 5 MiB, images 10 MiB, documents 20 MiB; " +
      'image-upscale takes at most 512x512 px at factor 2 and 256x256 px at factor 4.',
    action: 'Use a smaller file, or a smaller factor for image-upscale.',
    example: { detail: 'The image is 2048x2048 px; factor 2 takes at most 512x512 px.' },
  },
  unsupported_source: {
    when: 'The fetched file is of a type the tool does not take (for example a GIF for watermark-image, a spreadsheet for word-to-pdf).',
    action: "Convert the file to one of the types listed in the tool's description.",
    example: { detail: 'The file is a GIF image; this tool takes PNG, JPEG or WebP.' },
  },
  hash_too_costly: {
    when:
      'The supplied hash asks for more work than the service verifies: bcrypt cost above 14; ' +
      'argon2 memory above 256 MiB, more than 10 iterations or parallelism above 16.',
    action: 'Verify such hashes on your own hardware, or rehash with parameters within the limits.',
    members: { limits: 'The bounds the hash exceeded.' },
    example: { detail: 'The hash has cost 16; at most 14 is accepted.', members: { limits: { cost: 14 } } },
  },
  invalid_hash: {
    when: 'The supplied hash cannot be parsed: it is not a bcrypt ($2a$, $2b$, $2y$) or Argon2 PHC string as the tool expects.',
    action: 'Send the stored hash exactly as your library produced it, without added whitespace or quoting.',
    example: {
      detail:
        'The hash is not a bcrypt hash: expected $2a$, $2b$ or $2y$, a two-digit cost and 53 characters of salt and hash (60 in all).',
    },
  },
  destination_error: {
    when:
      'The call made its output but could not write it to the destination named in Output-Destination: the bucket refused the upload ' +
      '(it was removed, or the credentials lost the right to write), could not be reached, or the destination was deleted meanwhile. The call is refunded.',
    action: 'Check the bucket and its credentials (or create the destination again), then repeat the call. Nothing was charged.',
    members: S3_REASON,
    example: {
      detail: 'The output could not be written to destination dst_4hQ2mV8kZr1xYt6pW0nLbC.',
      members: { reason: 'NoSuchBucket: The specified bucket does not exist' },
    },
  },
  upstream_error: {
    when:
      'The target could not be reached or answered unusably: its name did not resolve, the connection was refused or timed out, ' +
      'or a TLS handshake failed where the tool needs TLS. A target that answers, even with an error status, is a 200 answer of the tool. ' +
      "A capture whose page load the browser aborted because the network of the service's own host changed (netError ERR_NETWORK_CHANGED, a passing failure) " +
      "has already been loaded once more, within the call's deadline and with every address checked again; any other network error is answered at once.",
    action: 'Check the target; if the failure was passing, try again later. Nothing was charged.',
    members: {
      reason: 'What failed, when known (for example dns_nxdomain).',
      netError: "A capture's page load: the browser's network error (for example ERR_CONNECTION_RESET).",
    },
    example: { detail: 'The name example.invalid does not resolve.' },
  },
  tool_timeout: {
    when: 'The tool did not finish within its deadline (a slow target, a very large page or document).',
    action:
      "Try again later, or with lighter input. A repeat with the same Idempotency-Key returns the same call's answer, so retry with a new key. Nothing was charged.",
    example: { detail: 'The tool did not finish within its deadline.' },
  },
};
