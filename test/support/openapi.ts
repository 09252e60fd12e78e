import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface OpenApiOperation {
  operationId?: string;
  description?: string;
  responses: Record<string, OpenApiResponse>;
  parameters?: Array<{ name: string; in: string; required?: boolean; description?: string; schema?: any }>;
  requestBody?: { content: Record<string, { schema: unknown; example?: unknown }> };
  security?: unknown[];
}

export interface OpenApiDocument {
  openapi: string;
  info: { description?: string };
  paths: Record<string, Record<string, OpenApiOperation>>;
  webhooks?: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, any>; securitySchemes?: Record<string, any> };
}

export interface OpenApiResponse {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: unknown; example?: unknown; examples?: Record<string, { summary?: string; value: any }> }>;
}

/** Runs @apidevtools/swagger-parser's validation on the document (in a child process: the parser is ESM). */
export function validateOpenApiDocument(doc: unknown): { ok: boolean; error?: string; openapi?: string } {
  const out = execFileSync(process.execPath, [join(__dirname, 'validate-openapi.mjs')], { input: JSON.stringify(doc), encoding: 'utf8' });
  return JSON.parse(out) as { ok: boolean; error?: string };
}

/** One finding of Redocly's linter: the rule, where, and what it says. */
export interface RedoclyProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer?: string }>;
}

const REPO_ROOT = join(__dirname, '..', '..');

/**
 * Lints the document with the pinned @redocly/cli and the repository's redocly.yaml (its recommended
 * rules), offline; returns every error and warning.
 */
export function lintOpenApiDocument(doc: unknown): { errors: number; warnings: number; problems: RedoclyProblem[] } {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const run = spawnSync(
      join(REPO_ROOT, 'node_modules', '.bin', 'redocly'),
      ['lint', file, '--format=json', '--config', join(REPO_ROOT, 'redocly.yaml')],
      { encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    );
    const start = run.stdout.indexOf('{');
    if (start < 0) throw new Error(`redocly lint printed no report (exit ${run.status}): ${run.stderr}`);
    const report = JSON.parse(run.stdout.slice(start)) as { totals: { errors: number; warnings: number }; problems: RedoclyProblem[] };
    return { errors: report.totals.errors, warnings: report.totals.warnings, problems: report.problems };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Checks live responses against the document: the operation's response for the status must exist,
 * and the JSON body must match its schema (ajv, with the document's components).
 */
export class ResponseValidator {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(private readonly doc: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema(doc as object, 'openapi.json');
  }

  response(path: string, method: string, status: number): OpenApiResponse {
    const operation = this.doc.paths[path]?.[method.toLowerCase()];
    if (!operation) throw new Error(`${method} ${path} is not in the document`);
    const response = operation.responses[String(status)];
    if (!response) throw new Error(`${method} ${path} does not document status ${status}`);
    return response;
  }

  /** Schema violations of a value against a component schema (empty when it matches). */
  checkSchema(name: string, value: unknown): string[] {
    const key = `#schema ${name}`;
    let validate = this.cache.get(key);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi.json#/components/schemas/${name}` });
      this.cache.set(key, validate);
    }
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
  }

  /** Returns the list of schema violations (empty when the body matches). */
  check(path: string, method: string, status: number, body: unknown): string[] {
    const key = `${method} ${path} ${status}`;
    let validate = this.cache.get(key);
    if (!validate) {
      const statusIndex = String(status);
      const pointer = `openapi.json#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${statusIndex}/content/application~1json/schema`;
      this.response(path, method, status); // throws with a clear message when undocumented
      validate = this.ajv.compile({ $ref: pointer });
      this.cache.set(key, validate);
    }
    return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
  }
}
