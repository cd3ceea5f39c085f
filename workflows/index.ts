//! Every workflow the workers run (this file is the sandbox bundle's entry point).
export { toolCall } from './tool-call.js';
export { sweeper } from './sweeper.js';
export { webhookEndpoint } from './webhook-endpoint.js';
export { webhookRefan } from './webhook-refan.js';
export { allowances } from './allowances.js';
export { batchRunner } from './batch-runner.js';
export { stripeEvent } from './stripe-event.js';
export { autoRecharge } from './auto-recharge.js';
export { billingUpkeep } from './billing-upkeep.js';
export { sendMail } from './mail.js';
