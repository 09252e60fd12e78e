export * from './in-process.transport';
export * from './nats.config';
export * from './nats.server';
export * from './rpc-client';
export * from './transport.module';
export * from './event-dispatch';
export * from './broadcaster';
export { MessageRefusals, RefusalReason, payloadProblems } from './payload-check';
