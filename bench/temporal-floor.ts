//! The floor under every platform row of bench:core: an empty workflow (it returns its input in
//! its first workflow task) started and awaited the way the API starts a call, on the same
//! Temporal server, with its worker in this process. Nothing of ours runs in it: no HTTP, no
//! ledger, no tool. What it costs is what "a workflow per call" costs on this machine, and no
//! change to our code can take a call below it. Beside it, the call's own workflow (toolCall, as
//! the pools run it) with a step that does nothing: what the call's shape adds to the floor (its
//! one local activity) before the ledger, the tool and the API add theirs.
import { Client } from '@temporalio/client';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { measure, type Figures } from './measure.js';
import { cpuPerCall, cpuSnapshot, type StackProcess } from './process-cpu.js';
import type { CallStepResult } from '../activities/call-step.js';
import { WORKFLOW_TYPES } from '../contracts/temporal-names.js';
import type { ToolCallInput } from '../contracts/call.js';
import { workflowBundle as callWorkflowBundle } from '../workers/workflow-bundle.js';
import { createLogger } from '../lib/logger.js';
import { temporalConnectOptions, type TemporalSettings } from '../lib/config-temporal.js';

const TASK_QUEUE = 'bench-floor';
const CALL_SHAPE_QUEUE = 'bench-call-shape';

/** The rows measured: the floor, the floor with eager start, and the call's own workflow with an empty step. */
export type FloorKind = 'floor' | 'eager' | 'shape';

const LABELS: Record<FloorKind, string> = {
  floor: 'empty workflow, Temporal alone (floor)',
  eager: 'empty workflow, Temporal alone (floor, eager start)',
  shape: "the call's workflow, a step that does nothing (no ledger, no tool)",
};

/** A call step that does nothing: answers a charge at once. */
async function callStep(): Promise<CallStepResult> {
  return {
    outcome: 'charged',
    result: { ok: true, output: { digest: '0'.repeat(64) }, charged: 1, balance: 0 },
    ms: { reserve: 0, tool: 0, settle: 0 },
  };
}

function callShapeInput(): ToolCallInput {
  return {
    accountId: 'bench',
    tool: 'hash-text',
    pool: 'cpu',
    execution: 'local',
    oneStep: true,
    cost: 1,
    timeoutMs: 10_000,
    input: { text: 'bench' },
    answerBy: Date.now() + 60_000,
  };
}

export interface FloorFigures {
  rows: Array<Figures & { kind: FloorKind }>;
  cpu: Array<{ kind: FloorKind; label: string; concurrency: number; perCall: ReturnType<typeof cpuPerCall> }>;
}

/** This process's own CPU (the floor's client and worker), in ms. */
const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

export async function temporalFloor(
  temporal: TemporalSettings,
  processes: StackProcess[],
  options: { calls: number; warmup?: number; concurrencies: number[] },
): Promise<FloorFigures> {
  // Temporal and its store: the dev server keeps it inside; the cluster's is PostgreSQL.
  const temporalProcess = processes.filter((p) => p.name === 'temporal' || p.name === 'postgres');
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./floor-workflow.ts', import.meta.url)),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
  });
  const connection = await NativeConnection.connect(temporalConnectOptions(temporal));
  const client = new Client({ connection, namespace: temporal.namespace });
  const worker = await Worker.create({
    connection,
    namespace: temporal.namespace,
    taskQueue: TASK_QUEUE,
    workflowBundle,
    maxConcurrentWorkflowTaskExecutions: 100,
    maxCachedWorkflows: 500,
  });
  const shapeWorker = await Worker.create({
    connection,
    namespace: temporal.namespace,
    taskQueue: CALL_SHAPE_QUEUE,
    workflowBundle: await callWorkflowBundle(createLogger({ level: 'warn', name: 'bench' })),
    activities: { callStep },
    maxConcurrentWorkflowTaskExecutions: 100,
    maxConcurrentLocalActivityExecutions: 100,
    maxCachedWorkflows: 500,
  });
  const figures: FloorFigures = { rows: [], cpu: [] };

  async function floorRow(concurrency: number, kind: FloorKind) {
    let before = cpuSnapshot(temporalProcess);
    let ownBefore = ownCpuMs();
    let counted = 0;
    const row = await measure(
      LABELS[kind],
      async (i) => {
        if (i === 0) {
          before = cpuSnapshot(temporalProcess);
          ownBefore = ownCpuMs();
        }
        const id = `floor-${concurrency}-${kind}-${i}-${Date.now()}`;
        // As the API starts a call: start, then wait for the result. Eager: the server hands the
        // first workflow task back with the start, to this process's worker.
        const handle =
          kind === 'shape'
            ? await client.workflow.start(WORKFLOW_TYPES.toolCall, {
                taskQueue: CALL_SHAPE_QUEUE,
                workflowId: id,
                args: [callShapeInput()],
              })
            : await client.workflow.start('echo', {
                taskQueue: TASK_QUEUE,
                workflowId: id,
                args: [id],
                requestEagerStart: kind === 'eager',
              });
        await handle.result();
        if (i >= 0) counted++;
      },
      { calls: options.calls, concurrency, warmup: options.warmup },
    );
    const perCall = cpuPerCall(before, cpuSnapshot(temporalProcess), counted);
    const own = (ownCpuMs() - ownBefore) / counted;
    perCall.splice(
      -1,
      1,
      { process: 'client + worker (bench process)', msPerCall: own },
      { process: 'all', msPerCall: perCall.at(-1)!.msPerCall + own },
    );
    figures.rows.push({ ...row, kind });
    figures.cpu.push({ kind, label: row.label, concurrency, perCall });
  }

  const running = [worker.run(), shapeWorker.run()];
  try {
    for (const concurrency of options.concurrencies) {
      for (const kind of Object.keys(LABELS) as FloorKind[]) await floorRow(concurrency, kind);
    }
  } finally {
    worker.shutdown();
    shapeWorker.shutdown();
    await Promise.all(running);
    await connection.close();
  }
  return figures;
}
