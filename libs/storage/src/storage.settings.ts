import { S3Client } from '@aws-sdk/client-s3';
import { choice, EnvReader, flag, int, STORAGE_DIR, text, unset, url } from '@gen/config';
import { LocalDirectoryStorage, OutputStorage } from './output-storage';
import { MIN_PART_SIZE_BYTES, S3ObjectStorage } from './s3-object-storage';

/** Stored with every object and sent by the content host: immutable while it exists, deleted at the end of its retention. */
export const OUTPUT_CACHE_CONTROL = 'public, max-age=3600, immutable';

/**
 * Where outputs and uploads are kept (generation writes, the gateway serves; standalone does both).
 * `local` (the default) is the folder STORAGE_DIR; `s3` is a bucket of any S3-compatible store, with
 * credentials from the AWS SDK's default chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a profile,
 * IRSA or another workload identity), never from a variable of ours.
 */
export const STORAGE_VARIABLES = {
  driver: choice('STORAGE_DRIVER', ['local', 's3'] as const, 'local', '`local`: the folder `STORAGE_DIR`; `s3`: an S3-compatible bucket (`S3_*`; credentials from the AWS SDK chain)'),
  bucket: text('S3_BUCKET', unset('**required** with `STORAGE_DRIVER=s3`'), 'the bucket of outputs and uploads'),
  endpoint: url('S3_ENDPOINT', unset("AWS's endpoint for `S3_REGION`"), 'an S3-compatible endpoint (MinIO, Ceph, R2, GCS...)'),
  region: text('S3_REGION', 'us-east-1', 'the region of the bucket (signing)'),
  prefix: text('S3_PREFIX', '', 'prepended to every object name (`gen/`): several installs in one bucket'),
  forcePathStyle: flag('S3_FORCE_PATH_STYLE', false, '`endpoint/bucket/key` instead of `bucket.endpoint/key` (most self-hosted stores)'),
  partSizeBytes: int('S3_PART_SIZE_MB', 8, 'objects above this are uploaded in parts of this size (multipart); memory per write in flight is 4 parts', {
    min: MIN_PART_SIZE_BYTES / (1024 * 1024),
    max: 512,
    scale: 1024 * 1024,
  }),
};

/** How the gateway's content host answers for an object (the gateway reads these). */
export const OUTPUT_URL_VARIABLES = {
  mode: choice(
    'OUTPUT_URLS',
    ['cdn', 'signed'] as const,
    'cdn',
    '`cdn`: the gateway streams outputs at `output_url`; `signed` (with `s3`): it answers `302` to a presigned GET of the bucket, fresh at each request',
  ),
  signedTtlSeconds: int('OUTPUT_URL_TTL_SECONDS', 300, 'how long a presigned GET (`OUTPUT_URLS=signed`) is valid', { min: 1, max: 604_800 }),
};

export type StorageSettings =
  | { driver: 'local'; dir: string }
  | { driver: 's3'; bucket: string; endpoint: string | null; region: string; prefix: string; forcePathStyle: boolean; partSizeBytes: number };

export interface OutputUrlSettings {
  mode: 'cdn' | 'signed';
  signedTtlSeconds: number;
}

/** The storage settings of this process; `dir` is the local folder (STORAGE_DIR, or standalone's own). */
export function readStorageSettings(env: EnvReader, dir: string = env.read(STORAGE_DIR)): StorageSettings {
  const values = env.readAll(STORAGE_VARIABLES);
  if (values.driver === 'local') return { driver: 'local', dir };
  if (!values.bucket) env.problem('S3_BUCKET is required with STORAGE_DRIVER=s3');
  return { ...values, driver: 's3', bucket: values.bucket ?? '' };
}

/** OUTPUT_URLS and its TTL; `signed` needs a driver that signs (s3). */
export function readOutputUrlSettings(env: EnvReader, storage: StorageSettings): OutputUrlSettings {
  const values = env.readAll(OUTPUT_URL_VARIABLES);
  if (values.mode === 'signed' && storage.driver !== 's3') env.problem('OUTPUT_URLS=signed needs STORAGE_DRIVER=s3 (a local folder has no presigned URLs)');
  return values;
}

/** The storage the settings name. */
export function createOutputStorage(settings: StorageSettings): OutputStorage {
  if (settings.driver === 'local') return new LocalDirectoryStorage(settings.dir);
  const client = new S3Client({
    region: settings.region,
    endpoint: settings.endpoint ?? undefined,
    forcePathStyle: settings.forcePathStyle,
    // Checksums only where the operation needs one: most S3-compatible stores reject the newer default.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return new S3ObjectStorage({ client, bucket: settings.bucket, prefix: settings.prefix, partSizeBytes: settings.partSizeBytes, cacheControl: OUTPUT_CACHE_CONTROL });
}
