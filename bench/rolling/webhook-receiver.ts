import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '@gen/webhook-signature';

/** A customer's webhook endpoint: checks every delivery's signature and notes which jobs it heard of. */
export interface WebhookReceiver {
  url: string;
  /** Job ids with at least one delivery whose signature verified. */
  delivered: Set<string>;
  /** Deliveries whose signature did not verify (should stay 0). */
  badSignatures: number;
  /** Deliveries in all (a redelivery after a restart counts again: at least once). */
  received: number;
  useSecret(secret: string): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  let secret = '';
  const receiver: Omit<WebhookReceiver, 'url' | 'useSecret' | 'close'> = { delivered: new Set(), badSignatures: 0, received: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      receiver.received++;
      const body = Buffer.concat(chunks);
      try {
        verify(body, req.headers, secret);
        receiver.delivered.add((JSON.parse(body.toString('utf8')) as { id: string }).id);
      } catch {
        receiver.badSignatures++;
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    useSecret: (value: string) => void (secret = value),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}
