import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  NotFound,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable } from 'node:stream';
import type { OutputExtension } from './output-formats';
import { assertObjectKey, contentTypeOfKey, isObjectKey, newObjectKey, ObjectSource, OutputStorage, StoredObject } from './output-storage';

/** S3 takes at most 1000 keys per DeleteObjects request. */
const DELETE_BATCH = 1000;
/** S3's smallest multipart part (but the last). */
export const MIN_PART_SIZE_BYTES = 5 * 1024 * 1024;

export interface S3ObjectStorageOptions {
  client: S3Client;
  bucket: string;
  /** Prepended to every key in the bucket (`outputs/`, or empty): one bucket may hold several installs. */
  prefix?: string;
  /**
   * Objects larger than this are uploaded in parts of this size (multipart); smaller ones in one PUT.
   * Also what a streamed write holds in memory per part in flight (`queueSize` of them).
   */
  partSizeBytes?: number;
  /** Parts uploaded at once by one write. */
  queueSize?: number;
  /** Cache-Control stored with each object (what a presigned GET answers with). */
  cacheControl?: string;
}

/**
 * Objects in an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, R2, GCS interoperability...), for any
 * number of replicas with no shared folder. The keys are the storage's own (`ab/ab…32 hex.png`) under
 * `prefix`; the content type is stored with each object, so a presigned GET serves it as the gateway
 * would. Credentials come from the SDK's default chain (environment, profile, IRSA / workload identity).
 */
export class S3ObjectStorage extends OutputStorage {
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly partSize: number;
  private readonly queueSize: number;
  private readonly cacheControl: string | undefined;

  constructor(options: S3ObjectStorageOptions) {
    super();
    this.client = options.client;
    this.bucket = options.bucket;
    this.prefix = options.prefix ?? '';
    this.partSize = Math.max(options.partSizeBytes ?? 8 * 1024 * 1024, MIN_PART_SIZE_BYTES);
    this.queueSize = options.queueSize ?? 4;
    this.cacheControl = options.cacheControl;
  }

  async put(data: Buffer, extension: OutputExtension): Promise<string> {
    const key = newObjectKey(extension);
    await this.write(key, data);
    return key;
  }

  async write(key: string, source: ObjectSource): Promise<void> {
    assertObjectKey(key);
    const params = { Bucket: this.bucket, Key: this.name(key), ContentType: contentTypeOfKey(key), CacheControl: this.cacheControl };
    if (Buffer.isBuffer(source) && source.length <= this.partSize) {
      // One PUT: S3 replaces an object atomically, so a retried write of the key is harmless.
      await this.client.send(new PutObjectCommand({ ...params, Body: source, ContentLength: source.length }));
      return;
    }
    // Streamed: the upload reads one part at a time (a body shorter than a part still goes as one PUT);
    // above a part it is a multipart upload, which S3 makes visible only when it completes.
    const body = Buffer.isBuffer(source) || source instanceof Readable ? source : Readable.from(source);
    const upload = new Upload({ client: this.client, params: { ...params, Body: body }, partSize: this.partSize, queueSize: this.queueSize, leavePartsOnError: true });
    try {
      await upload.done();
    } catch (error) {
      // The parts already sent are removed (best effort: the caller hears why the write failed, not
      // why the clean-up did; a bucket lifecycle rule removes what an abort could not, see docs).
      if (upload.uploadId) {
        await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: params.Key, UploadId: upload.uploadId })).catch(() => undefined);
      }
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertObjectKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.name(key) }));
  }

  /** DeleteObjects, 1000 keys per request; a key S3 could not delete fails the call (the sweep retries it). */
  override async deleteMany(keys: readonly string[]): Promise<void> {
    keys.forEach(assertObjectKey);
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      const result = await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((key) => ({ Key: this.name(key) })), Quiet: true } }),
      );
      const failed = (result.Errors ?? []).filter((error) => error.Code !== 'NoSuchKey');
      if (failed.length > 0) {
        throw new Error(`Could not delete ${failed.length} of ${batch.length} objects (first: ${failed[0].Key}: ${failed[0].Code} ${failed[0].Message ?? ''})`);
      }
    }
  }

  async find(key: string): Promise<StoredObject | null> {
    if (!isObjectKey(key)) return null;
    let size: number;
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.name(key) }));
      size = head.ContentLength ?? 0;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    return { size, contentType: contentTypeOfKey(key), open: (range) => this.read(key, range) };
  }

  override signedUrl(key: string, expiresInSeconds: number): Promise<string | null> {
    assertObjectKey(key);
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.bucket, Key: this.name(key) }), { expiresIn: expiresInSeconds });
  }

  /** The object's bytes as a stream that starts the GET when first read (open() is synchronous). */
  private read(key: string, range?: { start: number; end: number }): Readable {
    const { client, bucket } = this;
    const name = this.name(key);
    return Readable.from(
      (async function* () {
        const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: name, Range: range ? `bytes=${range.start}-${range.end}` : undefined }));
        yield* answer.Body as Readable;
      })(),
      { objectMode: false },
    );
  }

  private name(key: string): string {
    return `${this.prefix}${key}`;
  }
}

function isMissing(error: unknown): boolean {
  if (error instanceof NotFound) return true;
  return error instanceof S3ServiceException && (error.$metadata.httpStatusCode === 404 || error.name === 'NoSuchKey' || error.name === 'NotFound');
}
