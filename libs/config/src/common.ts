import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { PUBLIC_LISTENER_VARIABLES } from './ops';
import { derived, text, url } from './variables';

const publicBaseUrl = url(
  'PUBLIC_BASE_URL',
  derived('`http://localhost:$PORT`', (valueOf) => `http://localhost:${valueOf(PUBLIC_LISTENER_VARIABLES.port)}`),
  'where clients reach the API',
);

/** Where clients reach the API and its outputs (the gateway, generation, standalone, the CLI). */
export const PUBLIC_URL_VARIABLES = {
  publicBaseUrl,
  cdnBaseUrl: url('CDN_BASE_URL', derived('`$PUBLIC_BASE_URL/cdn`', (valueOf) => `${valueOf(publicBaseUrl)}/cdn`), "base of `output_url` (generation writes it into records; the gateway's dashboard allows it in its CSP). Distributed: set it (or `PUBLIC_BASE_URL`) on generation, or every `output_url` points at `localhost:3000`"),
};

/** The outputs folder of a distributed deployment (standalone keeps them in DATA_DIR/outputs). */
export const STORAGE_DIR = text('STORAGE_DIR', '.data/outputs', 'where outputs are written (generation) and served from (gateway)');

/** A name unique to this process, for lease ownership and logs. */
export function processIdentity(service: string): string {
  return `${service}-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
