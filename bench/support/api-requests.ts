import { request } from 'undici';
import type { LoadRequest } from './load';
import { INSTANT_IMAGE } from './modes';

/** A sync image generation of the model bound to the instant engine (the request waits for the job). */
export function syncGenerateRequest(key: string): LoadRequest {
  return {
    method: 'POST',
    path: '/api/v1/generate',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: INSTANT_IMAGE, prompt: 'a lighthouse at dusk', type: 'TEXT_TO_IMAGE' }),
  };
}

/**
 * 'ok' for a 200 with the completed record; otherwise the status and the record's status (a 202
 * means the sync budget ran out) or the error's code.
 */
export function syncGenerateOutcome(status: number, body: string): string {
  let answer: { status?: string; error?: { code?: string } } = {};
  try {
    answer = JSON.parse(body) as typeof answer;
  } catch {
    // Not JSON: labelled by its status alone.
  }
  return status === 200 && answer.status === 'completed' ? 'ok' : `${status} ${answer.status ?? answer.error?.code ?? ''}`.trim();
}

/** Sync generations through the service, `perAccount` for each key; the ids of the completed jobs, by account. */
export async function seedJobs(url: string, keys: string[], perAccount: number): Promise<string[][]> {
  return Promise.all(
    keys.map(async (key) => {
      const ids: string[] = [];
      while (ids.length < perAccount) {
        const req = syncGenerateRequest(key);
        const response = await request(`${url}${req.path}`, { method: req.method, headers: req.headers, body: req.body });
        const body = await response.body.text();
        const outcome = syncGenerateOutcome(response.statusCode, body);
        if (outcome !== 'ok') throw new Error(`seeding a generation answered ${outcome}: ${body}`);
        ids.push((JSON.parse(body) as { id: string }).id);
      }
      return ids;
    }),
  );
}
