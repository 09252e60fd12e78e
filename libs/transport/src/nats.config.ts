/** Distributed mode's NATS settings, shared by servers and clients. */
export interface NatsTransportConfig {
  url: string;
  /** The app's name: its queue group and the prefix of its durable consumers. */
  service: string;
  /** Prepended to every subject: lets several deployments (or test runs) share one NATS server. */
  subjectPrefix: string;
  /** The JetStream stream that holds the domain events. */
  streamName: string;
  requestTimeoutMs: number;
}

export function requestSubject(config: Pick<NatsTransportConfig, 'subjectPrefix'>, pattern: string): string {
  return `${config.subjectPrefix}rpc.${pattern}`;
}

export function eventSubject(config: Pick<NatsTransportConfig, 'subjectPrefix'>, pattern: string): string {
  return `${config.subjectPrefix}events.${pattern}`;
}

export function streamSubjects(config: Pick<NatsTransportConfig, 'subjectPrefix'>): string[] {
  return [`${config.subjectPrefix}events.>`];
}
