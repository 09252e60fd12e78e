// Run from an empty folder where only the packed @generation-service/sdk tarball was installed:
// generates, waits, cancels and verifies a webhook against a running service, then prints a JSON
// summary on its last line. BASE_URL, API_KEY, WEBHOOK_SECRET and HOOK_PORT come from the test.
import { createServer } from 'node:http';
import { GenerationApiError, GenerationClient, verifyWebhook } from '@generation-service/sdk';

const { BASE_URL, API_KEY, WEBHOOK_SECRET, HOOK_PORT } = process.env;
const received = [];
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    received.push({ headers: req.headers, body: Buffer.concat(chunks) });
    res.writeHead(204).end();
  });
});
await new Promise((resolve) => receiver.listen(Number(HOOK_PORT), '127.0.0.1', resolve));

const client = new GenerationClient({ apiKey: API_KEY, baseUrl: BASE_URL });
const image = await client.generations.create({ model: 'pixel-flux-1', prompt: 'a packed lighthouse', type: 'TEXT_TO_IMAGE' });
const imageDone = await client.generations.wait(image.id, { timeoutMs: 60_000 });
const audio = await client.generations.create({ model: 'tone-weaver-1', prompt: 'a packed bell', type: 'TEXT_TO_AUDIO' });
const audioDone = await client.generations.wait(audio.id, { timeoutMs: 60_000 });
const video = await client.generations.create({ model: 'motion-lite-1', prompt: 'a packed wave', type: 'TEXT_TO_VIDEO' });
const canceled = await client.generations.cancel(video.id);
let conflict = null;
try {
  await client.generations.cancel(imageDone.id);
} catch (error) {
  conflict = error instanceof GenerationApiError ? { code: error.code, status: error.status, requestId: typeof error.requestId } : String(error);
}

for (let i = 0; i < 200 && received.length < 3; i++) await new Promise((r) => setTimeout(r, 100));
const verified = [];
for (const request of received) {
  const result = await verifyWebhook({ payload: request.body, headers: request.headers, secret: WEBHOOK_SECRET });
  verified.push({ event: result.event.event, id: result.event.id, scheme: result.scheme });
}
let tampered = null;
try {
  await verifyWebhook({ payload: Buffer.concat([received[0].body, Buffer.from(' ')]), headers: received[0].headers, secret: WEBHOOK_SECRET });
} catch (error) {
  tampered = error.reason;
}
receiver.close();
console.log(
  JSON.stringify({
    image: imageDone.status,
    audio: audioDone.status,
    canceled: { status: canceled.status, credits_charged: canceled.credits_charged, canceled: canceled.canceled_at !== null },
    conflict,
    ids: { image: image.id, audio: audio.id, video: video.id },
    verified,
    tampered,
  }),
);
