//! The test file's one webhook receiver (webhook-receiver.ts), for ava files. Apart from that
//! module, which scripts outside ava load too (bench/webhooks.ts, the fuzz run): ava ends a process
//! that loads it outside its CLI.
import test from 'ava';
import { createReceiver, type Receiver } from './webhook-receiver.js';

/** A receiver that listens before the file's tests and is closed after them (the hooks are registered by this call, made once at the top of the file). */
export function receiverForFile(): Receiver {
  const receiver = createReceiver();
  test.before(() => receiver.listen());
  test.after.always(() => receiver.close());
  return receiver;
}
