export * from './outbox-event.entity';
export * from './outbox-store.repository';
export * from './outbox-relay';
