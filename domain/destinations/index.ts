//! Output destinations (domain/destinations/): an account's buckets, what the API checks of one, and
//! the worker's write of a call's file to it.
export { createDestinationDelivery, type DeliveryRequest } from './delivery.js';
export { StoredFile } from './stored-file.js';
export { MAX_DESTINATIONS_PER_ACCOUNT, createDestinationService, type DestinationService, type NewDestination } from './service.js';
