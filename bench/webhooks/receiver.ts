/**
 * The benchmark's webhook receiver, run as its own process (`fork`ed by main.ts): node:http on
 * 127.0.0.1 with keep-alive, verifying every request's signature with the receiver library, as a
 * customer's endpoint would.
 *
 * Paths:
 * - `/ok`: 200 at once.
 * - `/fail2`: 500 for the first two requests of a delivery id, then 200 (the retry-schedule probe).
 *
 * It records, per request, the arrival time (epoch ms, sub-millisecond) and, for `/fail2`, when its
 * answer was handed to the socket, and sends the records to the parent on `collect`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { DELIVERY_ID_HEADER, verify } from '@gen/webhook-signature';
import type { ReceiverCommand, ReceiverMessage, ReceivedRequest } from './receiver-protocol';

const secret = process.env.BENCH_WEBHOOK_SECRET;
if (!secret) throw new Error('BENCH_WEBHOOK_SECRET is not set');

const now = () => performance.timeOrigin + performance.now();
let records: ReceivedRequest[] = [];
let badSignatures = 0;
let requests = 0;
const failCounts = new Map<string, number>();

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const at = now();
    requests++;
    const raw = Buffer.concat(chunks);
    try {
      verify(raw, req.headers, secret);
    } catch {
      badSignatures++;
    }
    const deliveryId = String(req.headers[DELIVERY_ID_HEADER.toLowerCase()] ?? '');
    // The body's `id` (the generation id) ties the request to the event the parent fed.
    const jobId = (JSON.parse(raw.toString('utf8')) as { id?: string }).id ?? '';
    const record: ReceivedRequest = { path: req.url ?? '', deliveryId, jobId, at, answeredAt: null, status: 200 };
    records.push(record);
    if (req.url === '/fail2') {
      const n = (failCounts.get(deliveryId) ?? 0) + 1;
      failCounts.set(deliveryId, n);
      if (n <= 2) record.status = 500;
      res.on('finish', () => (record.answeredAt = now()));
    }
    res.writeHead(record.status, { 'content-type': 'text/plain', 'content-length': '2' }).end('ok');
  });
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;

const send = (message: ReceiverMessage) => process.send?.(message);

process.on('message', (command: ReceiverCommand) => {
  switch (command.type) {
    case 'collect': {
      send({ type: 'records', records, badSignatures, requests });
      records = [];
      badSignatures = 0;
      requests = 0;
      break;
    }
    case 'stop':
      server.closeAllConnections();
      server.close(() => process.exit(0));
      break;
  }
});
process.on('disconnect', () => process.exit(0));

server.listen(0, '127.0.0.1', () => send({ type: 'ready', port: (server.address() as AddressInfo).port }));
