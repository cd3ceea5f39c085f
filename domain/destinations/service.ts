//! What the account API does with destinations, below HTTP: create one (the endpoint admitted by the
//! target guard, a test upload the bucket must accept), list, read, delete; and the check a tool
//! call with `Output-Destination` passes before anything starts or is charged.
import type { Db } from 'mongodb';
import { ServiceError } from '../../contracts/errors.js';
import { newId } from '../../lib/ids.js';
import type { TargetGuard } from '../../lib/target-guard.js';
import { isInputRefusal } from '../../lib/target-host.js';
import { auditDraft, changesOf, createAuditLog, deletionDraft, type AuditContext } from '../audit/index.js';
import type { ToolDefinition } from '../tools/index.js';
import { createDestinationStore, DESTINATION_ID, publicDestination, type DestinationFields } from './store.js';

/** Destinations of one account: plenty for a bucket per use, few enough to list on one page. */
export const MAX_DESTINATIONS_PER_ACCOUNT = 20;

/** Region of a destination that names none: AWS's default, and what most S3-compatible servers take. */
export const DEFAULT_REGION = 'us-east-1';

/** The name of the test object written (and then deleted) at creation, beside where outputs go. */
const PROBE_NAME = '.utility-tools-write-test';

/** The request header of a tool call that names a destination. */
export const DESTINATION_HEADER = 'Output-Destination';

/** The body of `POST /api/v1/account/destinations`, as its schema let it through. */
export interface NewDestination {
  type: 's3';
  bucket: string;
  prefix?: string;
  endpoint?: string;
  region?: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export interface DestinationServiceDeps {
  db: Db;
  /** SECRET_KEY: seals secret access keys at rest. */
  secretKey: Buffer;
  /** The service's target guard: an endpoint is a URL the service connects to. */
  guard: TargetGuard;
}

function badField(field: string, message: string, detail = `${field.slice(1)} ${message}.`): ServiceError {
  return new ServiceError('validation_failed', detail, { errors: [{ field, message }] });
}

/** Where a call names its destination; a batch names it in its body (`/destination`). */
const HEADER_FIELD = `header:${DESTINATION_HEADER}`;

function badDestination(field: string, detail: string, message: string): ServiceError {
  return new ServiceError('validation_failed', detail, { errors: [{ field, message }] });
}

export function createDestinationService(deps: DestinationServiceDeps) {
  const store = createDestinationStore(deps.db, deps.secretKey);
  const auditLog = createAuditLog(deps.db);

  /**
   * The endpoint's origin, admitted as the webhooks' URLs are: a badly written URL is 400, an
   * address the guard refuses (private, loopback, metadata ...) 422 `target_not_allowed`. Plain
   * http only to an address the operator allowlisted (their own network): elsewhere the objects
   * would cross the internet in clear.
   */
  async function admitEndpoint(raw: string | undefined): Promise<string | null> {
    if (raw === undefined) return null;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw badField('/endpoint', 'must be an absolute URL');
    }
    if (url.pathname !== '/' || url.search || url.hash)
      throw badField('/endpoint', 'must be scheme, host and port only (the bucket goes in bucket)');
    let via: 'public' | 'allowlist';
    try {
      via = (await deps.guard.resolveUrl(url, { schemes: ['http', 'https'] })).target.via;
    } catch (err) {
      if (isInputRefusal(err)) throw badField('/endpoint', err.message, err.message);
      if (err instanceof ServiceError && err.code === 'upstream_error') {
        throw new ServiceError(
          'destination_unusable',
          `The endpoint cannot be reached: ${err.message}`,
          { reason: err.message },
          { cause: err },
        );
      }
      throw err;
    }
    if (url.protocol === 'http:' && via !== 'allowlist') throw badField('/endpoint', 'must be https');
    return url.origin;
  }

  /** Writes a small object where the outputs will go, then deletes it (a key that may not delete is fine). */
  async function testUpload(id: string, fields: DestinationFields, secretAccessKey: string): Promise<void> {
    const { openBucket, BucketRefused } = await import('../../lib/s3-bucket.js');
    const bucket = openBucket(fields, { accessKeyId: fields.accessKeyId, secretAccessKey }, deps.guard);
    const key = `${fields.prefix ? `${fields.prefix}/` : ''}${PROBE_NAME}`;
    try {
      await bucket.put(key, Buffer.from(`Utility Tools checked that ${id} can write here.\n`), 'text/plain');
    } catch (err) {
      if (!(err instanceof BucketRefused)) throw err;
      throw new ServiceError(
        'destination_unusable',
        `The bucket refused the test upload: ${err.reason}`,
        { reason: err.reason },
        { cause: err },
      );
    } finally {
      await bucket.remove(key).catch(() => undefined);
      bucket.close();
    }
  }

  return {
    list: async (accountId: string) => (await store.list(accountId)).map(publicDestination),

    async get(accountId: string, id: string) {
      const doc = await store.get(accountId, id);
      if (!doc) throw noDestination(id);
      return publicDestination(doc);
    },

    async create(accountId: string, body: NewDestination, audit: AuditContext) {
      if ((await store.count(accountId)) >= MAX_DESTINATIONS_PER_ACCOUNT) {
        throw badField(
          '/bucket',
          `at most ${MAX_DESTINATIONS_PER_ACCOUNT} destinations per account`,
          `An account can have at most ${MAX_DESTINATIONS_PER_ACCOUNT} destinations; delete one first.`,
        );
      }
      const fields: DestinationFields = {
        type: body.type,
        bucket: body.bucket,
        prefix: body.prefix ?? '',
        endpoint: await admitEndpoint(body.endpoint),
        region: body.region ?? DEFAULT_REGION,
        accessKeyId: body.accessKeyId,
      };
      const id = newId('dst');
      await testUpload(id, fields, body.secretAccessKey);
      const shown = {
        bucket: fields.bucket,
        prefix: fields.prefix,
        endpoint: fields.endpoint,
        region: fields.region,
        accessKeyId: fields.accessKeyId,
      };
      const draft = auditDraft(
        audit,
        accountId,
        'destination.created',
        { type: 'destination', id },
        changesOf({}, shown, Object.keys(shown)),
      );
      const doc = await store.create(id, accountId, fields, body.secretAccessKey, draft);
      await auditLog.flush('destination', id);
      return publicDestination(doc);
    },

    /** Deletes it; its audit entry is appended once it is gone (`deleting`). */
    async remove(accountId: string, id: string, audit: AuditContext): Promise<void> {
      const doc = await store.get(accountId, id);
      if (!doc) throw noDestination(id);
      const before = { bucket: doc.bucket, prefix: doc.prefix };
      const draft = deletionDraft(audit, accountId, 'destination.deleted', { type: 'destination', id }, before);
      if (!(await auditLog.deleting(draft, () => store.remove(accountId, id)))) throw noDestination(id);
    },

    /**
     * The destination a call of `tool` names in its header (or a batch in its body, `field`),
     * checked before anything starts: a tool that makes a file, and a destination of the caller's
     * account. Each refusal is a 400 naming where it was named (the tool's path exists: a 404 would
     * say otherwise).
     */
    async forCall(accountId: string, named: string, tool: ToolDefinition, field = HEADER_FIELD): Promise<string> {
      const where = field === HEADER_FIELD ? DESTINATION_HEADER : 'destination';
      if (!DESTINATION_ID.test(named))
        throw badDestination(field, `${where} must be a destination id (dst_...).`, 'must be a destination id (dst_...)');
      if (!tool.fileField) {
        throw badDestination(
          field,
          `${tool.name} makes no file to store: ${where} is for the tools that do.`,
          `${tool.name} makes no file to store`,
        );
      }
      if (!(await store.get(accountId, named)))
        throw badDestination(field, `There is no destination ${named} on this account.`, 'no such destination on this account');
      return named;
    },
  };
}

export type DestinationService = ReturnType<typeof createDestinationService>;

function noDestination(id: string): ServiceError {
  return new ServiceError('not_found', `There is no destination ${id} on this account.`);
}
