import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { Broadcaster, NatsBroadcaster } from './broadcaster';
import { InProcessBus } from './in-process.transport';
import { NatsTransportConfig } from './nats.config';
import {
  EventPublisher,
  InProcessEventPublisher,
  InProcessRpcClient,
  JetStreamEventPublisher,
  NatsRpcClient,
  RpcClient,
} from './rpc-client';

export type TransportOptions = { kind: 'in-process'; bus: InProcessBus } | { kind: 'nats'; nats: NatsTransportConfig };

/** Provides RpcClient and EventPublisher for the chosen mode; everything else is mode-blind. */
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
          ]
        : [
            { provide: NatsRpcClient, useFactory: () => new NatsRpcClient(options.nats) },
            { provide: RpcClient, useExisting: NatsRpcClient },
            {
              provide: EventPublisher,
              inject: [NatsRpcClient],
              useFactory: (rpc: NatsRpcClient) => new JetStreamEventPublisher(options.nats, rpc),
            },
            { provide: Broadcaster, inject: [NatsRpcClient], useFactory: (rpc: NatsRpcClient) => new NatsBroadcaster(options.nats, rpc) },
          ];
    // NatsRpcClient too, in NATS mode: readiness checks ping NATS through its connection.
    const exports = options.kind === 'nats' ? [RpcClient, EventPublisher, Broadcaster, NatsRpcClient] : [RpcClient, EventPublisher, Broadcaster];
    return { module: TransportModule, providers, exports };
  }
}
