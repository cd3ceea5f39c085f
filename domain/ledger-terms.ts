//! What the ledger is told of a call and what it answers: the terms its reserve, commit and refund
//! (domain/ledger.ts, quick-reserve.ts, settlement.ts) and their callers share.

/** A call as the ledger knows it: whose, which, and what it costs. */
export interface CallRef {
  accountId: string;
  requestId: string;
  tool: string;
  cost: number;
  /**
   * Epoch ms after which the API no longer waits for this call's answer (ToolCallInput.answerBy).
   * A commit that runs later refunds instead: nobody will see the 200 it would pay for.
   */
  answerBy?: number;
  /**
   * Set on a reserve that may follow this call's own settlement: a workflow task re-run after its
   * worker died, whose earlier run may have committed or refunded before it could report. Such a
   * reserve reads the call's ledger entry first and holds nothing when the call is settled.
   */
  mayBeSettled?: boolean;
  /**
   * The API key that made the call: its entry names it and the account's `keySpend` counts it. A
   * monitor's run names its monitor here, whose monthly credit cap is held as a key's is.
   */
  keyId?: string;
  /** That key's monthlyCreditLimit: a reserve that would take its month's spending past it is refused. */
  keyCreditLimit?: number;
  /** `mcp` for a call made over MCP, `monitor` for a monitor's run: its ledger entry says so. */
  via?: 'mcp' | 'monitor';
}

/**
 * A reserve's answer: held (ok) or refused, with the available balance; `keyLimit` when the key's
 * monthly limit refused it (what it has spent this month).
 */
export type ReserveResult = { ok: true; balance: number } | { ok: false; balance: number; keyLimit?: { limit: number; spent: number } };

export interface CommitResult {
  /** `refunded` when the commit came after the call's answerBy. */
  outcome: 'charged' | 'refunded';
  /** Available balance after the commit. */
  balance: number;
  /** Credits charged: the cost, or 0 when refunded. */
  charged: number;
}
