/** Messages between the benchmark (parent) and its receiver process (receiver.ts). */

export interface ReceivedRequest {
  path: string;
  deliveryId: string;
  /** The body's `id`. */
  jobId: string;
  /** Epoch ms (sub-millisecond) when the request had fully arrived. */
  at: number;
  /** `/fail2` only: epoch ms when the answer was handed to the socket. */
  answeredAt: number | null;
  status: number;
}

export type ReceiverCommand = { type: 'collect' } | { type: 'stop' };

export type ReceiverMessage =
  | { type: 'ready'; port: number }
  | { type: 'records'; records: ReceivedRequest[]; badSignatures: number; requests: number };
