//! smtp-test: a mail server's greeting, TLS and (with credentials) authentication, never sending
//! mail. Its precheck needs no I/O: the port is one of the mail ports the service talks to
//! (25, 465, 587, 2525, docs/API.md; anything else is 422 `port_not_allowed`, so the tool cannot be
//! pointed at other services), and credentials come as a pair.
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, Defaulted, ISO_UTC_PATTERN, OrNull, StringEnum, type Validated } from '../../lib/schema-types.js';
import { ToolError, invalidField } from '../../contracts/errors.js';
import { defineTool, FAILURES } from './definition.js';

export const SMTP_PORTS = [25, 465, 587, 2525] as const;

export const SmtpTestInput = ClosedObject(
  {
    host: Type.String({ minLength: 1, maxLength: 255, description: 'Mail server hostname (or IP address), without a scheme or port.' }),
    port: Defaulted(
      Type.Integer({ description: 'One of 25, 465, 587, 2525 (others answer 422 port_not_allowed). Port 465 always uses implicit TLS.' }),
      587,
    ),
    encryption: Defaulted(
      StringEnum(['starttls', 'ssl', 'none'], {
        description:
          'starttls: upgrade with STARTTLS when the server offers it; ssl: implicit TLS from the first byte; none: stay in plain text. Credentials are sent over a plain-text session only when none is chosen explicitly.',
      }),
      'starttls',
    ),
    username: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'Supplying credentials adds an AUTH check (PLAIN, else LOGIN); used once, never stored. Needs password.',
      }),
    ),
    password: Type.Optional(
      Type.String({ minLength: 1, maxLength: 512, description: 'Needed only together with username (a password alone answers 400).' }),
    ),
  },
  {
    description:
      'A mail server to test: banner, EHLO, STARTTLS where offered (or implicit TLS), the TLS certificate and, only when credentials are given, whether AUTH accepts them. It never sends MAIL FROM, so it cannot send mail. Private and other non-public addresses are refused (422 target_not_allowed); ports other than 25, 465, 587 and 2525 are refused (422 port_not_allowed). Credentials are sealed for this call only and never stored or shown.',
    examples: [{ host: 'smtp.example.com', port: 587, encryption: 'starttls' }],
  },
);
export type SmtpTestInput = Validated<typeof SmtpTestInput>;
export const SmtpTestOutput = ClosedObject(
  {
    host: Type.String({ description: 'Additive: host connected to (lower case, IP addresses canonical).' }),
    port: Type.Integer({ description: 'Additive: port connected to.' }),
    encryption: StringEnum(['starttls', 'implicit-tls', 'none'], {
      description:
        'What the session used: starttls, implicit-tls or none (also when starttls was asked for but the server did not offer it).',
    }),
    authAttempted: Type.Boolean({ description: 'Whether credentials were supplied.' }),
    authSucceeded: Type.Boolean({
      description: 'Whether the server accepted them (235). False when none were given or they could not be sent (see steps).',
    }),
    certificateSubject: OrNull(Type.String(), {
      description: 'TLS certificate subject, e.g. CN=mail.example.com; null when the session had no TLS.',
    }),
    certificateIssuer: OrNull(Type.String(), { description: 'TLS certificate issuer; null without TLS.' }),
    certificateExpiresUtc: OrNull(Type.String({ pattern: ISO_UTC_PATTERN }), {
      description: 'Certificate expiry, ISO 8601 UTC; null without TLS.',
    }),
    certificateValid: OrNull(Type.Boolean(), {
      description: 'Additive: whether the certificate chain is trusted, in date and covers the host; null without TLS.',
    }),
    certificateError: Type.Optional(
      Type.String({
        description: 'Additive, when certificateValid is false: the reason, e.g. CERT_HAS_EXPIRED or ERR_TLS_CERT_ALTNAME_INVALID.',
      }),
    ),
    banner: Type.String({ description: "Additive: the server's greeting (first line of its 220 reply)." }),
    extensions: Type.Array(Type.String(), {
      description: 'EHLO capabilities advertised (after STARTTLS when upgraded), e.g. SIZE 10240000, PIPELINING, AUTH PLAIN LOGIN.',
    }),
    authMechanisms: Type.Array(Type.String(), { description: 'AUTH mechanisms offered, upper case.' }),
    steps: Type.Array(ClosedObject({ step: Type.String(), ms: Type.Integer({ minimum: 0 }), reply: Type.String() }), {
      description:
        "Each protocol step in order: step (CONNECT, EHLO, HELO, STARTTLS, TLS, AUTH PLAIN / AUTH LOGIN, QUIT), ms (its duration) and reply (the server's reply as sent, or the negotiated TLS version and cipher). Credentials never appear in a reply.",
    }),
  },
  {
    description:
      'What the session found. A server that cannot be reached, greets with an error, sends malformed or oversized replies, or does not finish within 20 s is 502 upstream_error.',
    examples: [
      {
        host: 'smtp.example.com',
        port: 587,
        encryption: 'starttls',
        authAttempted: false,
        authSucceeded: false,
        certificateSubject: 'CN=smtp.example.com',
        certificateIssuer: "C=US, O=Let's Encrypt, CN=R11",
        certificateExpiresUtc: '2026-09-01T12:00:00.000Z',
        certificateValid: true,
        banner: 'smtp.example.com ESMTP',
        extensions: ['PIPELINING', 'SIZE 10240000', 'AUTH PLAIN LOGIN', '8BITMIME'],
        authMechanisms: ['PLAIN', 'LOGIN'],
        steps: [
          { step: 'CONNECT', ms: 41, reply: '220 smtp.example.com ESMTP' },
          { step: 'EHLO', ms: 20, reply: '250-smtp.example.com\n250-PIPELINING\n250-SIZE 10240000\n250 STARTTLS' },
          { step: 'STARTTLS', ms: 19, reply: '220 2.0.0 Ready to start TLS' },
          { step: 'TLS', ms: 38, reply: 'TLSv1.3 TLS_AES_256_GCM_SHA384' },
          { step: 'EHLO', ms: 20, reply: '250-smtp.example.com\n250-PIPELINING\n250-SIZE 10240000\n250-AUTH PLAIN LOGIN\n250 8BITMIME' },
          { step: 'QUIT', ms: 18, reply: '221 2.0.0 Bye' },
        ],
      },
    ],
  },
);
export type SmtpTestOutput = Static<typeof SmtpTestOutput>;

/** One step of the conversation: CONNECT, EHLO, HELO, STARTTLS, TLS, AUTH or QUIT, its time, and the server's reply (credentials redacted) or what the client observed. */
export type SmtpStep = SmtpTestOutput['steps'][number];

export function precheck(input: SmtpTestInput): void {
  if (!(SMTP_PORTS as readonly number[]).includes(input.port)) {
    throw new ToolError(
      'port_not_allowed',
      `Port ${input.port} is not a mail submission or relay port; use one of ${SMTP_PORTS.join(', ')}.`,
      {
        allowedPorts: [...SMTP_PORTS],
      },
    );
  }
  const hasUser = input.username !== undefined && input.username !== '';
  const hasPassword = input.password !== undefined && input.password !== '';
  if (hasPassword && !hasUser) throw invalidField('/username', 'is required when a password is given');
  if (hasUser && !hasPassword) throw invalidField('/password', 'is required when a username is given');
}

export const smtpTest = defineTool<SmtpTestInput, SmtpTestOutput>()({
  name: 'smtp-test',
  group: 'network',
  cost: 3,
  pool: 'network',
  schemas: { input: SmtpTestInput, output: SmtpTestOutput },
  timeoutMs: 45_000,
  secretFields: ['username', 'password'],
  failures: [...FAILURES.connects, 'port_not_allowed'],
  precheck,
  targets: (input) => [{ host: input.host, port: input.port }],
});
