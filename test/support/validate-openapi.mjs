// Validates an OpenAPI document (JSON on stdin) with @apidevtools/swagger-parser: structure against
// the official OpenAPI 3.x JSON schema, plus every $ref resolving. Prints {"ok":true} or
// {"ok":false,"error":"..."}. A separate process because the parser is ESM, which jest's CommonJS
// sandbox cannot load.
import SwaggerParser from '@apidevtools/swagger-parser';

let input = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) input += chunk;
try {
  const api = await SwaggerParser.validate(JSON.parse(input));
  process.stdout.write(JSON.stringify({ ok: true, openapi: api.openapi, paths: Object.keys(api.paths ?? {}).length }));
} catch (error) {
  process.stdout.write(JSON.stringify({ ok: false, error: String(error?.message ?? error) }));
}
