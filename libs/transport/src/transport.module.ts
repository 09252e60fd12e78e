import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { Broadcaster, NatsBroadcaster } from './broadcaster';
import { InProcessBus } from './in-process.transport';
import { NatsTransportConfig } from './nats.config';
import { MessageRefusals } from './payload-check';
import {
  EventPublisher,
  InProcessEventPublisher,
  InProcessRpcClient,
  JetStreamEventPublisher,
  NatsRpcClient,
  RpcClient,
} from './rpc-client';

/**
 * `refusals` (NATS): the server's (NatsJetStreamServer.refusals), so that the messages its server and
 * its broadcasts refuse are counted together and shown in the process's metrics.
 */
export type TransportOptions =
  | { kind: 'in-process'; bus: InProcessBus }
  | { kind: 'nats'; nats: NatsTransportConfig; refusals?: MessageRefusals };

/**
 * Provides RpcClient, EventPublisher and Broadcaster for the chosen mode (everything else is
 * mode-blind), and MessageRefusals, which ObservabilityModule registers in the process's metrics.
 */
@Global()
@Module({})
export class TransportModule {
  static forRoot(options: TransportOptions): DynamicModule {
    const providers: Provider[] =
      options.kind === 'in-process'
        ? [
            { provide: RpcClient, useValue: new InProcessRpcClient(options.bus) },
            { provide: EventPublisher, useValue: new InProcessEventPublisher(options.bus) },
            { provide: Broadcaster, useValue: options.bus.broadcaster },
            { provide: MessageRefusals, useValue: options.bus.refusals },
          ]
        : [
            { provide: NatsRpcClient, useFactory: () => new NatsRpcClient(options.nats) },
            { provide: RpcClient, useExisting: NatsRpcClient },
            {
              provide: EventPublisher,
              inject: [NatsRpcClient],
              useFactory: (rpc: NatsRpcClient) => new JetStreamEventPublisher(options.nats, rpc),
            },
            { provide: MessageRefusals, useValue: options.refusals ?? new MessageRefusals() },
            {
              provide: Broadcaster,
              inject: [NatsRpcClient, MessageRefusals],
              useFactory: (rpc: NatsRpcClient, refusals: MessageRefusals) => new NatsBroadcaster(options.nats, rpc, refusals),
            },
          ];
    // NatsRpcClient too, in NATS mode: readiness checks ping NATS through its connection.
    const shared = [RpcClient, EventPublisher, Broadcaster, MessageRefusals];
    const exports = options.kind === 'nats' ? [...shared, NatsRpcClient] : shared;
    return { module: TransportModule, providers, exports };
  }
}
