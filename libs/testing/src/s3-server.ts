import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';

/** s3rver's few members used here (it ships no types). */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

/** The access key and secret s3rver accepts (it checks signatures with these). */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** A real S3-compatible server (s3rver, in this process) with its bucket, for the storage specs. */
export interface TestS3Server {
  endpoint: string;
  bucket: string;
  region: string;
  /** What a process needs in its environment to use this bucket with STORAGE_DRIVER=s3. */
  env(prefix?: string): Record<string, string>;
  /** A client for this server (path-style, s3rver's credentials). */
  client(): S3Client;
  close(): Promise<void>;
}

/**
 * Starts s3rver on a free loopback port with an empty bucket, its objects in a temporary folder that
 * close() removes. s3rver is the S3-compatible server that installs and runs here (an npm package:
 * no MinIO or similar is available); it speaks the S3 REST API with SigV4, multipart uploads,
 * DeleteObjects, ranges and presigned URLs.
 */
export async function startS3Server(bucket = 'gen-outputs'): Promise<TestS3Server> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- s3rver is CommonJS without types
  const S3rver = require('s3rver') as S3rverClass;
  const directory = mkdtempSync(join(tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const region = 'us-east-1';
  const clients: S3Client[] = [];
  return {
    endpoint,
    bucket,
    region,
    env: (prefix = '') => ({
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: region,
      S3_PREFIX: prefix,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    }),
    client: () => {
      const client = new S3Client({
        endpoint,
        region,
        forcePathStyle: true,
        credentials: S3RVER_CREDENTIALS,
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      clients.push(client);
      return client;
    },
    close: async () => {
      for (const client of clients) client.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
