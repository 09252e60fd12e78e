import { spawn } from 'node:child_process';
import { once } from 'node:events';

/**
 * The guard's yardstick: a bare node:http server answering a generation-like record from memory,
 * as plain JavaScript run with `node -e` (the same from dist/ and from a spec under jest). What it
 * costs per request now, against what it cost when the budgets were set, says how much dearer CPU
 * is on the machine at the moment (verdict.ts, machineFactor).
 *
 * BURN_US makes each answer spin that many µs first: the deliberately slowed route of the guard's
 * spec (test/ops/bench-guard.int-spec.ts).
 */
const SOURCE = `
const http = require('node:http');
const burnUs = Number(process.env.BURN_US || 0);
const record = { object: 'generation', status: 'completed', type: 'TEXT_TO_IMAGE', model: 'pixel-flux-1',
  input: { prompt: 'a lighthouse at dusk' }, outputs: [{ url: 'http://127.0.0.1/cdn/x.png', content_type: 'image/png' }],
  credits: { reserved: 1, charged: 1 }, created_at: new Date().toISOString(), completed_at: new Date().toISOString() };
const server = http.createServer((req, res) => {
  const from = process.hrtime.bigint();
  if (burnUs > 0) while (Number(process.hrtime.bigint() - from) < burnUs * 1000);
  if (!req.headers.authorization) { res.writeHead(401); res.end(); return; }
  const body = JSON.stringify({ ...record, id: req.url.slice(req.url.lastIndexOf('/') + 1) });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write('reference listening at ' + server.address().port + '\\n'));
process.on('SIGTERM', () => process.exit(0));
`;

export interface ReferenceServer {
  url: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

export async function startReferenceServer(burnUs = 0): Promise<ReferenceServer> {
  const child = spawn(process.execPath, ['-e', SOURCE], { env: { PATH: process.env.PATH, BURN_US: String(burnUs) }, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const match = /reference listening at (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    void exited.then(() => reject(new Error(`the reference server exited: ${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
