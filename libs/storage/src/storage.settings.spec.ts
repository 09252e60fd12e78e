import { ConfigError, EnvReader, ProcessName } from '@gen/config';
import { LocalDirectoryStorage } from './output-storage';
import { S3ObjectStorage } from './s3-object-storage';
import { createOutputStorage, readOutputUrlSettings, readStorageSettings } from './storage.settings';

function read(env: Record<string, string>, process: ProcessName = 'generation') {
  const reader = new EnvReader(env, process);
  const storage = readStorageSettings(reader);
  const urls = readOutputUrlSettings(reader, storage);
  reader.done();
  return { storage, urls };
}

function problems(env: Record<string, string>): string[] {
  try {
    read(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('storage settings', () => {
  it('default to the local folder STORAGE_DIR, served by the gateway', () => {
    expect(read({})).toEqual({ storage: { driver: 'local', dir: '.data/outputs' }, urls: { mode: 'cdn', signedTtlSeconds: 300 } });
    expect(createOutputStorage(read({ STORAGE_DIR: '/srv/outputs' }).storage)).toBeInstanceOf(LocalDirectoryStorage);
  });

  it('s3: a bucket and its endpoint, prefix, region, path style and part size', () => {
    const { storage, urls } = read({
      STORAGE_DRIVER: 's3',
      S3_BUCKET: 'gen-outputs',
      S3_ENDPOINT: 'https://minio.storage.svc:9000/',
      S3_REGION: 'eu-west-3',
      S3_PREFIX: 'prod/',
      S3_FORCE_PATH_STYLE: 'true',
      S3_PART_SIZE_MB: '16',
      OUTPUT_URLS: 'signed',
      OUTPUT_URL_TTL_SECONDS: '600',
    });
    expect(storage).toEqual({
      driver: 's3',
      bucket: 'gen-outputs',
      endpoint: 'https://minio.storage.svc:9000',
      region: 'eu-west-3',
      prefix: 'prod/',
      forcePathStyle: true,
      partSizeBytes: 16 * 1024 * 1024,
    });
    expect(urls).toEqual({ mode: 'signed', signedTtlSeconds: 600 });
    const made = createOutputStorage(storage);
    expect(made).toBeInstanceOf(S3ObjectStorage);
    (made as S3ObjectStorage).client.destroy();
  });

  it('stops start-up naming what is missing or wrong', () => {
    expect(problems({ STORAGE_DRIVER: 's3' })).toEqual(['S3_BUCKET is required with STORAGE_DRIVER=s3']);
    expect(problems({ STORAGE_DRIVER: 'gcs' })).toEqual(['STORAGE_DRIVER must be one of local, s3 (got "gcs")']);
    expect(problems({ STORAGE_DRIVER: 's3', S3_BUCKET: 'b', S3_PART_SIZE_MB: '4' })).toEqual(['S3_PART_SIZE_MB must be between 5 and 512 (got 4)']);
    expect(problems({ OUTPUT_URLS: 'signed' })).toEqual(['OUTPUT_URLS=signed needs STORAGE_DRIVER=s3 (a local folder has no presigned URLs)']);
    expect(problems({ STORAGE_DRIVER: 's3', S3_BUCKET: 'b', OUTPUT_URL_TTL_SECONDS: '604801' })).toEqual(['OUTPUT_URL_TTL_SECONDS must be between 1 and 604800 (got 604801)']);
  });
});
