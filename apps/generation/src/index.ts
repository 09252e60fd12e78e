export * from './generation.module';
export * from './generation.database';
export * from './generation.tokens';
export * from './catalogue/catalogue';
export * from './engines/engine';
export * from './admin/job-admin.service';
export type { OperatorJobRow, OutboxRow } from './admin/job-admin.repository';
