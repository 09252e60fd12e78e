import { Inject, Injectable, Logger, OnApplicationShutdown, Optional } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { UploadReply } from '@gen/contracts';
import { DomainError, RateLimitError, ValidationError } from '@gen/errors';
import { UPLOAD_ID } from '@gen/model-inputs';
import { formatOfContentType, isObjectKey, ObjectTooLargeError, OUTPUT_FORMATS, OutputStorage, putSniffed, UnacceptedFormatError } from '@gen/storage';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';
import { AccountPlanService } from '../plans/account-plan.service';
import { ownUploadKey } from './own-upload-url';
import { UPLOAD_QUOTAS } from './upload-quotas';
import { MediaFetchRefused, RemoteMedia } from './remote-media';
import { UploadRow, UploadsRepository } from './uploads.repository';
import { DEFAULT_UPLOAD_SETTINGS, UploadSettings } from '../settings/uploads.settings';
import { BodyTooLargeError, isJsonlContentType, JSONL_MEDIA_TYPES, readBounded } from '../http-common/bounded-body';
import { UploadFilesRepository } from './upload-files.repository';

const ACCEPTED_TYPES = [...new Set(Object.values(OUTPUT_FORMATS).map((f) => f.contentType)), ...JSONL_MEDIA_TYPES].join(', ');

const EMPTY = 'The upload is empty: send the file as the request body.';

/** Expired uploads are kept this long before the janitor deletes them (a job submitted just before the end reads it meanwhile). */
export const UPLOAD_DELETE_GRACE_SECONDS = 3600;

/**
 * Input media: files a customer uploads, and media URLs fetched at submit, each kept in the storage
 * (local folder or bucket, streamed) for UPLOAD_TTL_HOURS and usable only by its own account.
 */
@Injectable()
export class UploadsService implements OnApplicationShutdown {
  private readonly logger = new Logger(UploadsService.name);
  private readonly limits: UploadSettings;
  private readonly contentBase: string;
  private readonly remote: RemoteMedia | null;
  private readonly storage: OutputStorage | null;

  constructor(
    private readonly uploads: UploadsRepository,
    private readonly files: UploadFilesRepository,
    private readonly plans: AccountPlanService,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
    // None in the operator CLI, which serves nothing and takes no uploads.
    @Optional() @Inject(OutputStorage) storage: OutputStorage | null,
  ) {
    this.limits = settings.uploads ?? DEFAULT_UPLOAD_SETTINGS;
    this.contentBase = (settings.cdnBaseUrl ?? `${settings.publicBaseUrl}/cdn`).replace(/\/+$/, '');
    this.storage = storage ?? null;
    // Media URLs keep to rules of their own, never the webhook allow-list (gateway.tokens.ts, mediaFetchPolicy).
    const policy = settings.mediaFetchPolicy ?? { ...settings.webhookPolicy, allowList: [] };
    this.remote = storage ? new RemoteMedia(storage, policy, { maxBytes: this.limits.maxBytes, timeoutMs: this.limits.fetchTimeoutMs }) : null;
  }

  private get store(): OutputStorage {
    if (!this.storage) throw new DomainError('service_unavailable', 'This process keeps no files.');
    return this.storage;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.remote?.close();
  }

  /** Stores the body (its declared type must be what its bytes are) as an upload of the account. */
  async create(accountId: string, contentType: string | undefined, body: AsyncIterable<Uint8Array> | undefined): Promise<UploadReply> {
    if (isJsonlContentType(contentType)) return this.createJsonl(accountId, contentType as string, body);
    const declared = contentType === undefined ? null : formatOfContentType(contentType);
    if (!declared) {
      throw new DomainError('unsupported_media_type', `Send the file as the body, with its media type as Content-Type: one of ${ACCEPTED_TYPES}.`);
    }
    if (!body) throw new ValidationError(EMPTY);
    // Refused before a byte is read when the day's quota is used up already.
    await this.assertRoom(accountId, 0);
    let stored;
    try {
      stored = await putSniffed(this.store, body, { maxBytes: this.limits.maxBytes, accept: (format) => format === declared });
    } catch (error) {
      if (error instanceof ObjectTooLargeError) throw new DomainError('payload_too_large', `An upload is at most ${megabytes(this.limits.maxBytes)} (UPLOAD_MAX_MB).`);
      if (error instanceof UnacceptedFormatError) {
        if (error.empty) throw new ValidationError(EMPTY);
        throw new ValidationError(
          error.found ? `The file is ${error.found.contentType}, not the ${declared.contentType} its Content-Type says.` : `The file is not ${declared.contentType} (nor another format the service takes).`,
        );
      }
      throw error;
    }
    const row = await this.record(accountId, stored.key, stored.format.contentType, stored.bytes, null);
    return this.reply(row);
  }

  /**
   * Stores a JSONL file (a batch's input, `POST /api/v1/batches` with `input_file_id`): kept in the
   * database, counted against the same daily quota as media. Its lines are checked when a batch names it.
   */
  private async createJsonl(accountId: string, contentType: string, body: AsyncIterable<Uint8Array> | undefined): Promise<UploadReply> {
    if (!body) throw new ValidationError(EMPTY);
    await this.assertRoom(accountId, 0);
    let content: Buffer;
    try {
      content = await readBounded(body, this.limits.maxBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) throw new DomainError('payload_too_large', `An upload is at most ${megabytes(this.limits.maxBytes)} (UPLOAD_MAX_MB).`);
      throw error;
    }
    if (content.length === 0) throw new ValidationError(EMPTY);
    await this.assertRoom(accountId, content.length, true);
    const id = `upl_${randomBytes(12).toString('hex')}`;
    const essence = contentType.split(';')[0].trim().toLowerCase();
    const file = await this.files.insert({ id, accountId, contentType: essence, content }, this.limits.ttlSeconds);
    // A JSONL file is not served (only POST /api/v1/batches reads it): its `url` is a URN naming it.
    return { id: file.id, url: `urn:upload:${file.id}`, expires_at: file.expiresAt.toISOString(), content_type: file.contentType, bytes: file.bytes };
  }

  /** The bytes of the account's JSONL upload `id` (`422` naming `field` when there is none, or it expired). */
  async readJsonl(accountId: string, id: string, field: string): Promise<Buffer> {
    const found = UPLOAD_ID.test(id) ? await this.files.read(accountId, id) : null;
    if (!found) throw new ValidationError(`${field}: no JSONL upload of this account has this id (POST /api/v1/uploads with Content-Type: application/jsonl)`);
    if (found.file.expired) throw new ValidationError(`${field}: this upload expired at ${found.file.expiresAt.toISOString()}; upload the file again`);
    return found.content;
  }

  /**
   * The media input `value` as the provider gets it: the URL of the account's upload it names (by id
   * or URL), or of a copy of the https URL it is, fetched now. A refusal names the field: nothing
   * else is kept. Returns the URL and, for a fetched copy, its upload (to remove if the submit fails).
   */
  async resolve(accountId: string, field: string, value: string, options: { fetch: boolean } = { fetch: true }): Promise<{ url: string; fetched: UploadRow | null }> {
    const at = `input.${field}`;
    const key = UPLOAD_ID.test(value) ? null : ownUploadKey(this.contentBase, value);
    if (UPLOAD_ID.test(value) || key !== null) {
      const upload = UPLOAD_ID.test(value) ? await this.uploads.findById(accountId, value) : key !== null && isObjectKey(key) ? await this.uploads.findByKey(accountId, key) : null;
      // Another account's upload is not found either: its id or URL says nothing to this one.
      if (!upload) throw new ValidationError(`${at}: no upload of this account has this ${UPLOAD_ID.test(value) ? 'id' : 'URL'} (POST /api/v1/uploads)`);
      if (upload.expired) throw new ValidationError(`${at}: this upload expired at ${upload.expiresAt.toISOString()}; upload the file again`);
      return { url: this.urlOf(upload.objectKey), fetched: null };
    }
    if (!options.fetch) throw new ValidationError(`${at}: a batch takes uploads only (an upload's id or URL, POST /api/v1/uploads); it does not fetch outside URLs`);
    await this.assertRoom(accountId, 0);
    let stored;
    try {
      if (!this.remote) throw new DomainError('service_unavailable', 'This process keeps no files.');
      stored = await this.remote.fetch(value);
    } catch (error) {
      if (error instanceof MediaFetchRefused) throw new ValidationError(`${at}: ${error.message}`);
      throw error;
    }
    const row = await this.record(accountId, stored.key, stored.format.contentType, stored.bytes, value);
    return { url: this.urlOf(row.objectKey), fetched: row };
  }

  /** Removes uploads made for a request that was then refused (best effort: the janitor gets the rest). */
  async discard(uploads: readonly UploadRow[]): Promise<void> {
    if (uploads.length === 0) return;
    try {
      await this.store.deleteMany(uploads.map((u) => u.objectKey));
      await this.uploads.remove(uploads.map((u) => u.id));
    } catch (error) {
      this.logger.warn({ err: error }, 'Could not remove media fetched for a refused request; the janitor will');
    }
  }

  /** Deletes uploads past their end (and the grace): objects first, then rows. Returns how many. */
  async sweepExpired(limit = 500): Promise<number> {
    const files = await this.files.deleteExpired(UPLOAD_DELETE_GRACE_SECONDS, limit);
    if (!this.storage) return files;
    const expired = await this.uploads.expired(UPLOAD_DELETE_GRACE_SECONDS, limit);
    if (expired.length === 0) return files;
    await this.storage.deleteMany(expired.map((u) => u.objectKey));
    await this.uploads.remove(expired.map((u) => u.id));
    return files + expired.length;
  }

  /**
   * Refuses (429 in the envelope, Retry-After until the next UTC midnight) when `bytes` more would
   * pass the plan's daily upload quota; with `charge`, counts them when they fit.
   */
  private async assertRoom(accountId: string, bytes: number, charge = false): Promise<void> {
    const { plan } = await this.plans.get(accountId);
    const quota = UPLOAD_QUOTAS[plan];
    const fits = charge
      ? await this.uploads.chargeToday(accountId, bytes, quota)
      : await this.uploads.usedToday(accountId).then((used) => used.files < quota.files && used.bytes + bytes <= quota.bytes);
    if (fits) return;
    const used = await this.uploads.usedToday(accountId);
    const now = new Date();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    throw new RateLimitError(
      `Daily upload quota reached: the ${plan} plan may upload ${megabytes(quota.bytes)} in ${quota.files} files per day (UTC); ` +
        `this account has uploaded ${megabytes(used.bytes)} in ${used.files} today${bytes > 0 ? ` and this file is ${megabytes(bytes)}` : ''}. ` +
        `The quota resets at ${new Date(midnight).toISOString().replace('.000Z', 'Z')}.`,
      Math.max(1, Math.ceil((midnight - now.getTime()) / 1000)),
    );
  }

  private async record(accountId: string, objectKey: string, contentType: string, bytes: number, sourceUrl: string | null): Promise<UploadRow> {
    const id = `upl_${randomBytes(12).toString('hex')}`;
    try {
      await this.assertRoom(accountId, bytes, true);
      return await this.uploads.insert({ id, accountId, objectKey, contentType, bytes, sourceUrl }, this.limits.ttlSeconds);
    } catch (error) {
      // Not recorded: nothing would ever delete the object.
      await this.store.delete(objectKey).catch(() => undefined);
      throw error;
    }
  }

  private reply(upload: UploadRow): UploadReply {
    return { id: upload.id, url: this.urlOf(upload.objectKey), expires_at: upload.expiresAt.toISOString(), content_type: upload.contentType, bytes: upload.bytes };
  }

  private urlOf(objectKey: string): string {
    return `${this.contentBase}/${objectKey}`;
  }
}

function megabytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${bytes} bytes`;
}
