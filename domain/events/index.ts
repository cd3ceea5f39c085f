//! Events (domain/events/): making and recording one (`record.ts`), and the account's event log
//! (`log.ts`). Their types are `contracts/event-kinds.ts`; the balance's are decided by the ledger.
export { createEventLog, EventDelivery } from './log.js';
export { createEventRecorder, eventCause, eventOfDoc, newEvent, type DomainEvent, type EventRecorder, type EventSink } from './record.js';
