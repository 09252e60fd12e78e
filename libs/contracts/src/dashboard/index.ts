// The dashboard's JSON API (/dashboard/api): the shapes the gateway answers and the dashboard reads (types only).
export * from './account';
export * from './generations';
export * from './keys';
