import { useCallback, useState } from 'react';
import { ApiError, dashboardApi } from '../api/api';

/**
 * The playground's uploads for media inputs: the file goes to the account's uploads as the chosen
 * key (POST /api/v1/uploads through the dashboard), and the field then holds its URL. `uploading` is
 * the field being uploaded; a refusal is reported to `onError` for that field.
 */
export function useMediaUpload(keyId: string | undefined, onError: (field: string, message: string) => void) {
  const [uploading, setUploading] = useState<string | null>(null);
  const upload = useCallback(
    async (field: string, file: File): Promise<string> => {
      if (!keyId) throw new Error('no key chosen');
      setUploading(field);
      try {
        return (await dashboardApi.upload(keyId, file)).url;
      } catch (error) {
        onError(field, error instanceof ApiError ? error.detail : 'The file could not be uploaded.');
        throw error;
      } finally {
        setUploading(null);
      }
    },
    [keyId, onError],
  );
  return { uploading, upload };
}
