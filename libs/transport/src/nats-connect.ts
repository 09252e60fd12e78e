import type { Socket } from 'node:net';
import type { ConnectionOptions, NatsConnection } from 'nats';
import { NatsConnectionImpl, setTransportFactory } from 'nats/lib/nats-base-client/internal_mod';
import { NodeTransport, nodeResolveHost } from 'nats/lib/src/node_transport';

/**
 * nats.js writes what one microtask queued in one socket write: under load that is one write (and
 * one wake-up of the NATS server and of every receiver) per message handled, since each request,
 * reply and ack is sent from its own I/O callback. This transport corks its socket at the first
 * write of an event-loop turn and uncorks it in the turn's check phase (`setImmediate`), so what
 * every callback of the turn sent leaves in one `writev`. Idle, that is the same moment the
 * microtask would have flushed; busy, a message waits at most for the rest of its turn
 * (bench/HISTORY.md, issue 34: a distributed sync generation cost 1,175 µs of CPU with a write
 * per message, 807 with a write per turn).
 */
export class TurnCoalescingTransport extends NodeTransport {
  private corked?: Socket;

  override send(frame: Uint8Array): void {
    const socket = this.socket;
    if (socket && this.corked !== socket && !socket.destroyed) {
      this.corked = socket;
      socket.cork();
      setImmediate(() => {
        this.corked = undefined;
        // `end()` and `destroy()` while corked already flushed or dropped what was written.
        if (!socket.destroyed) socket.uncork();
      });
    }
    super.send(frame);
  }

  /**
   * Writes what the turn corked before the socket is destroyed: nats.js's close destroys it at once,
   * and a reply sent just before (a draining server's last answer) was in the kernel already when
   * each microtask wrote its own.
   */
  override close(err?: Error): Promise<void> {
    const socket = this.corked;
    this.corked = undefined;
    if (socket && !socket.destroyed) socket.uncork();
    return super.close(err);
  }
}

/**
 * `connect` of `nats`, with TurnCoalescingTransport and without async traces: nats.js otherwise builds
 * an Error (a stack trace) for every request it makes, a JetStream publish's ack wait included, only
 * to give a failure its caller's stack; our callers turn every failure into a DomainError of their
 * own (rpc-client.ts), and the traces were 3 % of the generation process's busy time under load.
 *
 * nats.js keeps one transport factory for the process and uses it for every dial, reconnects too, so
 * every connection of ours is made here (NatsRpcClient, NatsJetStreamServer); a plain `connect` from
 * `nats` elsewhere in the process would set its own factory back, making later dials write per
 * microtask again (slower, not wrong).
 */
export function connectNats(options: ConnectionOptions): Promise<NatsConnection> {
  setTransportFactory({ factory: () => new TurnCoalescingTransport(), dnsResolveFn: nodeResolveHost });
  return NatsConnectionImpl.connect({ noAsyncTraces: true, ...options });
}
