//! A call's life: reserve -> run -> commit or refund, one state machine that every path drives. The
//! states and their moves are one table (LIFE); a party only sends it events through its ports (the
//! ledger, the tool, the clock) and reads where the call ended. Nobody settles a call on the side.
//! Pure: the workflows run it in their sandbox with their own ports, the workers and the API with theirs.
//!
//! Who settles a call, in every case (docs/DEVELOPING.md, "A call's life"):
//! - Answered (the tool answered, or failed in a way retrying cannot change): whoever ran the tool,
//!   commits a success and refunds a failure: the call's one step (activities/call-step.ts) for a
//!   REST, MCP, asynchronous, batch item or monitor call; the workflow (workflows/tool-call.ts) for
//!   a call in separate steps (started before calls were one step).
//! - Timed out (the tool's deadline passed, its attempts included): the same party, a refund.
//! - Given up (the API's answer deadline passed, or Temporal stayed out of reach): the API refunds
//!   first (`giveUp`); a commit that runs after the call's `answerBy` refunds instead (the ledger
//!   judges it). Whoever reaches the ledger first decides and the call's ledger entry makes it final
//!   for the other: a call found charged has its answer waited for, never a refund.
//! - Cancelled (its MCP client cancelled it): a step that sees it stops the tool and refunds; a
//!   workflow cancelled while its step or tool runs refunds out of the cancelled scope (`cancel`)
//!   and ends cancelled. A call charged before the cancellation stays charged.
//! - Worker lost (a step or a workflow task run again after its worker died): the repeat reserves
//!   with `mayBeSettled`, and the ledger's entry, once written, is the outcome every later settle
//!   applies; a call taken up only after its answer deadline refunds what a dead attempt held
//!   (`takeUpLate`) and answers `tool_timeout`, unless that attempt's charge got through.
//! - Asynchronous: the API reserves ahead (`reserveAhead`: a short balance is a 402 before the 202);
//!   the step's own reserve then finds the hold and the call goes on as above.
import {
  ANSWERED_TOO_LATE,
  callRef,
  reserveRefusal,
  type CallFields,
  type CallRef,
  type ReserveResult,
  type ToolCallError,
  type ToolCallResult,
} from './call.js';

export type CallState =
  | 'new'
  | 'held'
  | 'answered'
  | 'failed'
  | 'cancelled'
  | 'giving_up'
  | 'refused'
  | 'charged'
  | 'refunded'
  | 'charged_without_output';
export type CallEvent = 'reserved' | 'refused' | 'tool_answered' | 'tool_failed' | 'cancelled' | 'given_up' | 'charged' | 'refunded';
/** What the party does on entering a state: the ledger step, or the tool. */
export type CallEffect = 'run' | 'commit' | 'refund';
export interface CallMove {
  next: CallState;
  effect?: CallEffect;
}

/**
 * Every move a call can make: state, event -> next state and its side effect. A settle's event is
 * what the ledger answered: `charged` or `refunded` (a commit after the call's answerBy refunds, and
 * a refund of a call an earlier run charged finds it charged).
 */
export const LIFE: Readonly<Record<CallState, Partial<Record<CallEvent, CallMove>>>> = {
  new: {
    reserved: { next: 'held', effect: 'run' },
    refused: { next: 'refused' },
    given_up: { next: 'giving_up', effect: 'refund' },
    cancelled: { next: 'cancelled', effect: 'refund' },
  },
  held: {
    tool_answered: { next: 'answered', effect: 'commit' },
    tool_failed: { next: 'failed', effect: 'refund' },
    cancelled: { next: 'cancelled', effect: 'refund' },
  },
  answered: { charged: { next: 'charged' }, refunded: { next: 'refunded' }, cancelled: { next: 'cancelled', effect: 'refund' } },
  // Charged though this run's tool failed: an earlier run was charged and answered.
  failed: { refunded: { next: 'refunded' }, charged: { next: 'charged_without_output' } },
  cancelled: { refunded: { next: 'refunded' }, charged: { next: 'charged' } },
  // Charged: the answer is on its way with the worker that took the call up again.
  giving_up: { refunded: { next: 'refunded' }, charged: { next: 'charged' } },
  refused: {},
  charged: {},
  refunded: {},
  charged_without_output: {},
};

/** The move `event` makes from `state`; a move the table does not have is a bug in its caller. */
export function move(state: CallState, event: CallEvent): CallMove {
  const found = LIFE[state][event];
  if (!found) throw new Error(`a call in state ${state} cannot take ${event}`);
  return found;
}

/** What a settle answered, as the ledger words it: a commit or refund result without `outcome`, recorded before it existed, was a charge. */
export interface Settled {
  outcome?: 'charged' | 'refunded';
  balance: number;
}

/** The ledger as a call's life uses it: the three guarded updates (domain/ledger/). */
export interface CallLedger {
  reserve(call: CallRef): Promise<ReserveResult>;
  commit(call: CallRef): Promise<Settled>;
  refund(call: CallRef): Promise<Settled>;
}

/** How a run of the tool ended: its output, or the contract's error. */
export type ToolOutcome = { ok: true; output: unknown } | { ok: false; error: ToolCallError };

export interface CallPorts {
  ledger: CallLedger;
  /** Runs the tool: its attempts, deadline and cancellation are the party's own. */
  tool: () => Promise<ToolOutcome>;
  /** Milliseconds, to time the ledger steps (the step's `ms`); none in a workflow. */
  clock?: () => number;
  /**
   * Whether what the tool or the commit threw is its party's cancellation (a workflow's): the hold is
   * then refunded, `shielded` from that cancellation, and the cancellation thrown on.
   */
  isCancellation?: (err: unknown) => boolean;
  /** Runs a refund that its party's cancellation must not stop (a workflow's non-cancellable scope). */
  shielded?: <T>(work: () => Promise<T>) => Promise<T>;
}

/** Where a call ended, what it answers, and how long its ledger steps took (with a clock). */
export interface CallEnd {
  state: 'refused' | 'charged' | 'refunded' | 'charged_without_output';
  result: ToolCallResult;
  ms: { reserve?: number; settle?: number };
}

const settledAs = (settled: Settled): CallEvent => (settled.outcome === 'refunded' ? 'refunded' : 'charged');

/**
 * A call's whole life from its reserve to its settle. `call.answerBy` goes to the commit, which
 * refunds past it; `mayBeSettled` to the reserve (a repeat that may follow the call's own settle).
 */
export async function liveCall(
  call: CallFields & { answerBy?: number },
  requestId: string,
  ports: CallPorts,
  { mayBeSettled }: { mayBeSettled: boolean },
): Promise<CallEnd> {
  const ref = callRef(call, requestId);
  const now = ports.clock ?? (() => 0);
  const ms: CallEnd['ms'] = {};
  let start = now();
  const reserved = await ports.ledger.reserve({ ...ref, mayBeSettled });
  if (ports.clock) ms.reserve = now() - start;
  let at = move('new', reserved.ok ? 'reserved' : 'refused');
  if (!reserved.ok) return { state: 'refused', result: { ok: false, error: reserveRefusal(call.cost, reserved) }, ms };

  let ran: ToolOutcome;
  let settled: Settled | undefined;
  try {
    ran = await ports.tool();
    at = move(at.next, ran.ok ? 'tool_answered' : 'tool_failed');
    start = now();
    if (at.effect === 'commit') settled = await ports.ledger.commit({ ...ref, answerBy: call.answerBy });
  } catch (err) {
    if (!ports.isCancellation?.(err)) throw err;
    move(at.next, 'cancelled');
    await cancel(ports.ledger, ref, ports.shielded);
    throw err;
  }
  settled ??= await ports.ledger.refund(ref);
  if (ports.clock) ms.settle = now() - start;
  const end = move(at.next, settledAs(settled)).next as CallEnd['state'];
  if (ran.ok && end === 'charged')
    return { state: end, result: { ok: true, output: ran.output, charged: call.cost, balance: settled.balance }, ms };
  return { state: end, result: { ok: false, error: ran.ok ? ANSWERED_TOO_LATE : ran.error }, ms };
}

/**
 * The API gives a call up (its deadline passed, or Temporal stayed out of reach): refunded first,
 * so that what it answers and what is charged agree whatever the workflow does next. `charged`
 * when the charge got through already: the call's answer is then waited for.
 */
export async function giveUp(ledger: Pick<CallLedger, 'refund'>, ref: CallRef): Promise<'charged' | 'refunded'> {
  const at = move('new', 'given_up');
  return move(at.next, settledAs(await ledger.refund(ref))).next === 'charged' ? 'charged' : 'refunded';
}

/** A workflow cancelled while its call ran: the hold refunded out of the cancelled scope (`shielded`). */
export async function cancel(ledger: Pick<CallLedger, 'refund'>, ref: CallRef, shielded: CallPorts['shielded']): Promise<void> {
  move('new', 'cancelled');
  await (shielded ? shielded(() => ledger.refund(ref)) : ledger.refund(ref));
}

/** An asynchronous call's reserve, made by the API before its 202: the refusal's error, or undefined once held. */
export async function reserveAhead(ledger: Pick<CallLedger, 'reserve'>, ref: CallRef): Promise<ToolCallError | undefined> {
  const reserved = await ledger.reserve(ref);
  move('new', reserved.ok ? 'reserved' : 'refused');
  return reserved.ok ? undefined : reserveRefusal(ref.cost, reserved);
}

/** Whether a call is taken up past its answer deadline (the API gave up on it): nobody waits for its answer. */
export const takenUpLate = (call: { answerBy?: number }, now: number) => call.answerBy !== undefined && now > call.answerBy;

/**
 * A call taken up past its answer deadline neither reserves nor runs its tool. A first attempt held
 * nothing: it answers `tool_timeout`. A re-run (`rerun`: its dead attempt may have reserved or
 * settled) refunds what that attempt held; a charge that got through stands, and the call goes on
 * to answer what it was charged for (`charged`).
 */
export async function takeUpLate(ledger: Pick<CallLedger, 'refund'>, ref: CallRef, rerun: boolean): Promise<'charged' | 'refunded'> {
  if (!rerun) return 'refunded';
  return giveUp(ledger, ref);
}
