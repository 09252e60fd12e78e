// The CommonJS entry of the packed SDK: require() works and verifies the webhooks guide's known answer.
const { GenerationClient, verifyWebhook } = require('@generation-service/sdk');

verifyWebhook({
  payload: '{"event":"generation.completed","id":"gen_01HZX3","status":"completed"}',
  headers: { 'x-service-timestamp': '1700000000', 'x-service-signature': 'sha256=3ca4443587f984604cabc525337d32bfaf5d0a43ffdbe5dce02c5821750f6016' },
  secret: 'whsec_K1a9Xq3mZp7Rt2Vw8Yb4Nc6Df0Gh5Js1',
  now: new Date(1700000000000),
}).then((verified) => console.log(JSON.stringify({ client: typeof GenerationClient, timestamp: verified.timestamp })));
