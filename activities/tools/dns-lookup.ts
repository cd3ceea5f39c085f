//! dns-lookup: records of one type through the service's resolver (`DNS_SERVERS`), served from
//! an in-process cache while their TTL lasts. NXDOMAIN and no-data are answers (`found: false`);
//! a resolver that fails or stays silent is 502 `upstream_error`.
import {
  lookupName,
  type DnsLookupInput,
  type DnsLookupOutput,
  type LookupRecord,
  type LookupStatus,
} from '../../domain/tools/dns-lookup.js';
import { ToolError } from '../../contracts/errors.js';
import { DnsError, type DnsResolver } from '../../lib/resolver.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import { agedRecords, cacheSeconds, shapeRecords } from '../network/dns-records.js';
import { createTtlCache, type TtlCache } from '../network/ttl-cache.js';

interface CachedAnswer {
  status: LookupStatus;
  records: LookupRecord[];
}

export interface DnsLookupDeps {
  resolver: Pick<DnsResolver, 'resolve'>;
  /** Answers kept between calls. @default a fresh bounded cache per handler. */
  cache?: TtlCache<CachedAnswer>;
}

export function createDnsLookup({
  resolver,
  cache = createTtlCache<CachedAnswer>(),
}: DnsLookupDeps): ToolHandler<DnsLookupInput, DnsLookupOutput> {
  return async (input) => {
    const hostname = lookupName(input.hostname, input.recordType);
    const type = input.recordType;
    const key = `${type} ${hostname}`;
    const base = { hostname, recordType: type };

    const hit = cache.get(key);
    if (hit) {
      const { status } = hit.value;
      return { ...base, records: agedRecords(hit.value.records, hit.remainingMs / 1000), found: status === 'found', status, cached: true };
    }

    let answer;
    try {
      answer = await resolver.resolve(hostname, type);
    } catch (err) {
      if (err instanceof DnsError) throw new ToolError('upstream_error', err.message, { reason: `dns_${err.kind}` }, { cause: err });
      throw err;
    }
    const { status, records } = shapeRecords(type, answer);
    cache.set(key, { status, records }, cacheSeconds(type, status, records) * 1000);
    return { ...base, records, found: status === 'found', status, cached: false };
  };
}
