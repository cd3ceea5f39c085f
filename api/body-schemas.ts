//! JSON Schemas of the account and operator API request bodies (validation and OpenAPI).
import { GRANT_REASONS } from '../domain/ledger/index.js';
import { CATALOGUE, GROUPS } from '../domain/tools/index.js';
import { MAX_RENDER_AGE_S } from '../domain/render-cache.js';
import { MAX_MONTHLY_ALLOWANCE, ROLLOVERS } from '../domain/plans/index.js';
import { MAX_ALLOWED_IPS, TOOL_SCOPES } from '../domain/accounts/index.js';
import { DEFAULT_EVENT_TYPES, SUBSCRIBABLE_EVENT_KINDS } from '../contracts/event-kinds.js';
import { PACK_ID_PATTERN, PACK_LIMITS, AUTO_RECHARGE_LIMITS } from '../domain/billing/index.js';

/** The tools render links call: those whose answer is an image. */
export const RENDER_TOOL_NAMES = [...CATALOGUE.values()].filter((t) => t.image).map((t) => t.name);
/** The longest `expiresIn` of a link the API signs: 10 years. */
export const MAX_LINK_LIFETIME_S = 10 * 365 * 24 * 60 * 60;

const name = { type: 'string', minLength: 1, maxLength: 100, description: 'A label for your own reference.' };
const eventTypes = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', enum: [...SUBSCRIBABLE_EVENT_KINDS] },
  description: `The event types delivered to the endpoint. \`webhook.test\` is always delivered when you ask for it. Default: ${DEFAULT_EVENT_TYPES.map((k) => `\`${k}\``).join(', ')} (every type but \`call.completed\`).`,
};

const planId = {
  type: 'string',
  pattern: '^[a-z0-9][a-z0-9-]{0,39}$',
  description: "The plan's id: lowercase letters, digits and dashes.",
};
const planName = { type: 'string', minLength: 1, maxLength: 100, description: "The plan's name, as owners see it." };
const monthlyAllowance = {
  type: 'integer',
  minimum: 0,
  maximum: MAX_MONTHLY_ALLOWANCE,
  description: `Credits an account on the plan gets each month, on its anniversary (0 to ${MAX_MONTHLY_ALLOWANCE.toLocaleString('en-US')}).`,
};
const rollover = {
  type: 'string',
  enum: [...ROLLOVERS],
  description: "`none`: the unused part of a month's allowance lapses when the next period starts. `keep`: it stays until spent.",
};

/** A key segment S3 takes without escaping; `.` and `..` alone are refused (clients would resolve them). */
const KEY_SEGMENT = "(?!\\.{1,2}(?:/|$))[A-Za-z0-9!_.*'()-]+";
const printable = { type: 'string', minLength: 1, pattern: '^[\\x21-\\x7e]+$' };
/** An API key's settings (domain/accounts/key-settings.ts); on a change, null clears one. */
function keySettings(clearable: boolean) {
  const orNull = (schema: Record<string, unknown>) => (clearable ? { ...schema, type: [schema.type, 'null'] } : schema);
  const unset = clearable ? ' null removes it.' : ' Unset: no limit.';
  return {
    tools: orNull({
      type: 'array',
      minItems: 1,
      maxItems: TOOL_SCOPES.length,
      uniqueItems: true,
      items: { type: 'string', enum: [...TOOL_SCOPES] },
      description: `Tool names and group names (${Object.keys(GROUPS)
        .map((g) => `\`${g}\``)
        .join(', ')}) the key may call; another tool answers 403 \`tool_not_allowed\`.${unset}`,
    }),
    expiresAt: orNull({
      type: 'string',
      format: 'date-time',
      description: `When the key stops working (in the future); after it, 401 \`unauthorized\` with \`reason: "expired"\`.${unset}`,
    }),
    rateLimit: orNull({
      type: 'integer',
      minimum: 1,
      description: `Calls per second for this key (bursts of twice that), at most the account's rate (RATE_LIMIT_PER_SECOND); over it, 429 \`rate_limited\`.${unset}`,
    }),
    monthlyCreditLimit: orNull({
      type: 'integer',
      minimum: 1,
      maximum: 1_000_000_000,
      description: `Credits the key may spend per calendar month (UTC), held like the balance: a call that would pass it answers 402 \`key_credit_limit\`, a refunded call gives its credits back.${unset}`,
    }),
    allowedIps: orNull({
      type: 'array',
      minItems: 1,
      maxItems: MAX_ALLOWED_IPS,
      uniqueItems: true,
      items: { type: 'string', maxLength: 64 },
      description: `IPv4 and IPv6 CIDRs (a bare address is its /32 or /128) the key may be used from; another address answers 403 \`ip_not_allowed\`.${unset}`,
    }),
  };
}

export const BODY_SCHEMAS = {
  createAccount: {
    type: 'object',
    additionalProperties: false,
    properties: {
      name,
      email: { type: 'string', format: 'email', maxLength: 254, description: 'Contact address of the account owner.' },
      credits: {
        type: 'integer',
        minimum: 0,
        maximum: 1_000_000_000,
        description: 'The one-off welcome grant, never expiring; FREE_CREDITS when omitted.',
      },
      plan: { ...planId, description: 'The plan the account joins (`free` when omitted). Its first allowance is granted at once.' },
      planStartsAt: {
        type: 'string',
        format: 'date-time',
        description:
          'When the account joined the plan, within the last 31 days (now when omitted): its anniversary. Periods since then are granted at once.',
      },
    },
  },
  grantCredits: {
    type: 'object',
    additionalProperties: false,
    required: ['amount', 'reason'],
    properties: {
      amount: { type: 'integer', minimum: 1, maximum: 1_000_000_000, description: 'Credits to add.' },
      reason: { type: 'string', enum: [...GRANT_REASONS], description: 'Why the credits are added.' },
      expiresAt: {
        type: 'string',
        format: 'date-time',
        description: 'When what is left of the grant lapses (in the future). Never when omitted.',
      },
      idempotencyKey: {
        type: 'string',
        minLength: 1,
        maxLength: 255,
        pattern: '^[\\x21-\\x7e]+$',
        description:
          'Your payment id: the same key again grants nothing new and answers the first grant; with another amount, reason or expiry it is refused (409).',
      },
    },
  },
  createPlan: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'monthlyAllowance', 'rollover'],
    properties: {
      id: { ...planId, description: `${planId.description} Generated from the name when omitted.` },
      name: planName,
      monthlyAllowance,
      rollover,
    },
  },
  updatePlan: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: { name: planName, monthlyAllowance, rollover },
  },
  changePlan: {
    type: 'object',
    additionalProperties: false,
    required: ['plan'],
    properties: {
      plan: { ...planId, description: 'The plan the account moves to, from its next period.' },
      prorate: {
        type: 'boolean',
        default: false,
        description: "Also grant now the rest of the current period's share of the difference, when the new plan's allowance is larger.",
      },
    },
  },
  createKey: {
    type: 'object',
    additionalProperties: false,
    properties: { name, ...keySettings(false) },
  },
  updateKey: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: { name: { ...name, type: ['string', 'null'] }, ...keySettings(true) },
  },
  createDestination: {
    type: 'object',
    additionalProperties: false,
    required: ['type', 'bucket', 'accessKeyId', 'secretAccessKey'],
    properties: {
      type: { type: 'string', const: 's3', description: '`s3`: AWS S3, or any S3-compatible server (give its `endpoint`).' },
      bucket: {
        type: 'string',
        minLength: 3,
        maxLength: 63,
        pattern: '^(?!.*\\.\\.)[a-z0-9][a-z0-9.-]*[a-z0-9]$',
        description: "The bucket's name (S3's rules: 3-63 lowercase letters, digits, dots and dashes).",
      },
      prefix: {
        type: 'string',
        maxLength: 512,
        pattern: `^${KEY_SEGMENT}(?:/${KEY_SEGMENT})*$`,
        description:
          "Where in the bucket the objects go: one or more segments joined by `/`, without a leading or trailing `/`. The bucket's root when omitted.",
      },
      endpoint: {
        type: 'string',
        minLength: 1,
        maxLength: 2048,
        description:
          'An S3-compatible server (MinIO, Cloudflare R2, Backblaze B2, Ceph ...): `https://host[:port]`, no path; requests are path-style. ' +
          'AWS S3 in `region` when omitted. The service connects to it under the same rules as to any target: a private, loopback, link-local or metadata address is refused ' +
          '(422 `target_not_allowed`) unless the operator allowlists it (`TARGET_ALLOWLIST`), and plain `http` only to such an allowlisted address.',
      },
      region: {
        type: 'string',
        pattern: '^[a-z0-9][a-z0-9-]{0,30}[a-z0-9]$',
        description: "The bucket's region; `us-east-1` when omitted.",
      },
      accessKeyId: {
        ...printable,
        maxLength: 128,
        description: 'The access key id of a key pair that may write (PutObject) under the prefix.',
      },
      secretAccessKey: {
        ...printable,
        maxLength: 256,
        writeOnly: true,
        description: 'Its secret. Stored encrypted, used only by the workers that write, never shown again.',
      },
    },
  },
  createWebhook: {
    type: 'object',
    additionalProperties: false,
    required: ['url'],
    properties: {
      url: {
        type: 'string',
        minLength: 1,
        maxLength: 2048,
        description: '`https` URL with a public address (`localhost`, any scheme, only where the operator allows it for testing).',
      },
      eventTypes,
    },
  },
  updateWebhook: {
    type: 'object',
    additionalProperties: false,
    required: ['eventTypes'],
    properties: { eventTypes },
  },
  enableWebhook: {
    type: 'object',
    additionalProperties: false,
    properties: {
      recoverSince: {
        type: 'string',
        format: 'date-time',
        description:
          'Also send, in the order they happened, every event of the last 30 days from this time on that the endpoint should have received and never got (its types at the time of the request).',
      },
    },
  },
  replayEvent: {
    type: 'object',
    additionalProperties: false,
    required: ['eventId'],
    properties: {
      eventId: {
        type: 'string',
        pattern: '^evt_[0-9A-Za-z]+$',
        maxLength: 64,
        description: 'The event to send again (from the event log).',
      },
    },
  },
  createRenderLink: {
    type: 'object',
    additionalProperties: false,
    required: ['tool', 'input'],
    properties: {
      tool: { type: 'string', enum: RENDER_TOOL_NAMES, description: 'The tool the link calls: one whose answer is an image.' },
      input: {
        type: 'object',
        additionalProperties: { type: ['string', 'number', 'boolean'] },
        description: "The tool's input, as for a POST of the tool (its schema); each field becomes a query parameter.",
      },
      expiresIn: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_LINK_LIFETIME_S,
        description: 'Seconds until the link answers 403 `link_expired`; without it the link works until its secret is retired.',
      },
      maxAge: {
        type: 'integer',
        minimum: 0,
        maximum: MAX_RENDER_AGE_S,
        description: 'How old a stored render the link accepts, in seconds (default 4 hours; 0: always a fresh one).',
      },
      secretId: {
        type: 'string',
        pattern: '^lks_[0-9A-Za-z]{22}$',
        description: 'The live link secret to sign with; the newest when left out.',
      },
    },
  },
  noBody: {
    type: 'object',
    additionalProperties: false,
    properties: {},
  },
  putCreditPack: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'credits', 'price'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 100, description: 'What customers see at checkout and in their purchases.' },
      credits: { type: 'integer', minimum: 1, maximum: PACK_LIMITS.credits, description: 'Credits a purchase of it grants.' },
      price: {
        type: 'object',
        additionalProperties: false,
        required: ['amount', 'currency'],
        properties: {
          amount: {
            type: 'integer',
            minimum: 1,
            maximum: PACK_LIMITS.amount,
            description: "In the currency's minor unit (cents for usd; yen for jpy).",
          },
          currency: { type: 'string', pattern: '^[a-z]{3}$', description: 'ISO 4217, lowercase (`usd`, `eur`).' },
        },
      },
      expiresInDays: {
        type: ['integer', 'null'],
        minimum: 1,
        maximum: PACK_LIMITS.expiresInDays,
        description: "What is left of a purchase's credits lapses this many days after its payment; null or left out: never.",
      },
      active: {
        type: 'boolean',
        default: true,
        description: 'Listed to accounts and for sale; false withdraws it (purchases made keep their terms).',
      },
    },
  },
  checkout: {
    type: 'object',
    additionalProperties: false,
    required: ['packId'],
    properties: {
      packId: { type: 'string', pattern: PACK_ID_PATTERN, description: 'The pack to buy (GET /api/v1/account/credit-packs).' },
      saveCard: {
        type: 'boolean',
        default: false,
        description: 'Keep the card for automatic recharges (Stripe saves it for off-session payments).',
      },
    },
  },
  autoRecharge: {
    type: 'object',
    additionalProperties: false,
    required: ['enabled', 'packId', 'threshold', 'monthlyLimit'],
    properties: {
      enabled: { type: 'boolean', description: 'On needs a card saved at a checkout with `saveCard: true`.' },
      packId: { type: 'string', pattern: PACK_ID_PATTERN, description: 'The pack each recharge buys: one for sale.' },
      threshold: {
        type: 'integer',
        minimum: 1,
        maximum: AUTO_RECHARGE_LIMITS.threshold,
        description: `A charged call that takes the balance below this starts a recharge (1 to ${AUTO_RECHARGE_LIMITS.threshold.toLocaleString('en-US')}).`,
      },
      monthlyLimit: {
        type: 'integer',
        minimum: 1,
        maximum: AUTO_RECHARGE_LIMITS.monthlyLimit,
        description: `Recharges a calendar month (UTC) may start, failed ones included (1 to ${AUTO_RECHARGE_LIMITS.monthlyLimit}).`,
      },
    },
  },
} as const;
