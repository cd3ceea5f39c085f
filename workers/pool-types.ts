//! What a pool's workers are built from and what building them gives back, shared by workers/pools.ts
//! and workers/core-pool.ts (which pools.ts imports only for a process that runs the core pool).
import type { NativeConnection, Worker, WorkflowBundle } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import type { BlobStore } from '../lib/blob-store.js';
import type { NetworkAccess } from '../lib/network-access.js';
import type { Tracing } from '../lib/tracing.js';
import type { SingleCalls } from '../activities/single-calls.js';

export interface PoolDeps {
  config: Config;
  db: Db;
  connection: NativeConnection;
  log: Logger;
  /** The process's one resolver, target guard and guarded clients, shared by its pools. */
  net: NetworkAccess;
  /** Where big outputs wait for their answer (BLOB_STORE_URL); the database when absent. */
  blobs?: BlobStore;
  /** A workflow bundle built once per process, shared by its pools' workers. */
  workflowBundle?: WorkflowBundle;
  /** Client for the webhook fan-out of ledger events; made on `connection` when absent. */
  client?: Client;
  /**
   * When the tools' costly processes start (Chromium, LibreOffice, the upscaling model): once
   * this settles, or at a call that needs one. At once when absent.
   */
  heavyStartAfter?: Promise<unknown>;
  /**
   * The process's tracing when on (lib/tracing.ts): the workers then run Temporal's OpenTelemetry
   * interceptors, and `workflowBundle` must have been built with their workflow module.
   */
  tracing?: Tracing;
  /** The process's count of single calls running, shared by its pools: a batch item anywhere in it yields to them. */
  singleCalls?: SingleCalls;
}

/** Releases what a pool's tools hold (thread pools, browsers, office listeners). */
export type Closer = () => Promise<void>;

/** What a pool's warm processes say of themselves: `null` when well (lib/operator-port.ts's checks). */
export type Warmth = Record<string, () => Promise<string | null>>;

/** A pool's workers: one per task queue it serves. */
export interface PoolWorkers {
  workers: Worker[];
  close: Closer;
  /** The pool's warm processes (its browser, its document converter), for the health endpoint. */
  warmth?: Warmth;
}
