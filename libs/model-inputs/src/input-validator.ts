import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { expectation, InputsSchema, MAX_INPUT_STRING, MAX_URI_LENGTH } from './input-schema';

/** The outcome of checking a customer's `input`: the input as applied (defaults filled in), or every problem, each naming its field. */
export type InputCheck = { ok: true; input: Record<string, unknown> } | { ok: false; errors: string[] };

/** Most compiled schemas kept (one per distinct schema of the catalogue; far more than any catalogue has). */
const MAX_COMPILED = 1_000;

/**
 * Validates customers' `input` against models' schemas with Ajv. Each schema is compiled once (by
 * its text: a catalogue re-read that changes nothing compiles nothing) and kept. Defaults are filled
 * in (`useDefaults`), nothing is coerced, and every error names its field with what it must be,
 * in the schema's words (`input.seed: must be an integer from 0 to 2147483647`).
 */
export interface MediaReferences {
  /**
   * The content host's base (CDN_BASE_URL): a URL under it names a stored object (an upload), and
   * is taken even over http (a local install). Absent: only https URLs.
   */
  contentBase?: string;
  /** Whether an upload's id (`upl_…`, POST /api/v1/uploads) is taken too (where the gateway resolves it). */
  uploadIds?: boolean;
  /** Whether http URLs are taken as well as https (where the deployment's destination rules allow http: WEBHOOK_ALLOW_HTTP). */
  allowHttp?: boolean;
}

/** What an upload's id looks like (`upl_` and 24 hex digits). */
export const UPLOAD_ID = /^upl_[0-9a-f]{24}$/;

export class InputValidator {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(media: MediaReferences = {}) {
    this.ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: false, strict: true });
    // `uri` (a media input): an https URL (RFC 3986, ajv-formats' full check), without credentials;
    // or, where configured, a URL of the content host or an upload's id.
    const uri = addFormats.get('uri', 'full') as (value: string) => boolean;
    const base = media.contentBase === undefined ? null : `${media.contentBase.replace(/\/+$/, '')}/`;
    this.ajv.addFormat('uri', {
      type: 'string',
      validate: (value: string) =>
        ((media.allowHttp === true ? /^https?:\/\/[^/@]+(\/|$)/i : /^https:\/\/[^/@]+(\/|$)/i).test(value) && uri(value)) ||
        (base !== null && value.startsWith(base) && uri(value)) ||
        (media.uploadIds === true && UPLOAD_ID.test(value)),
    });
  }

  /** Checks `raw` (the request's `input`, undefined when absent) against the schema. */
  check(schema: InputsSchema, raw: unknown): InputCheck {
    if (raw === undefined || raw === null) raw = {};
    if (typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, errors: ['input: must be an object of the model\'s inputs (see GET /api/v1/models/{id})'] };
    // A copy: defaults are written into it, never into the caller's body.
    const input: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
    const validate = this.validatorFor(schema);
    if (!validate(input)) return { ok: false, errors: describeErrors(schema, validate.errors ?? []) };
    // Stored as JSON in PostgreSQL, which has no NUL character in text.
    const nul = Object.keys(input).filter((name) => typeof input[name] === 'string' && (input[name] as string).includes('\u0000'));
    if (nul.length > 0) return { ok: false, errors: nul.map((name) => `input.${name}: must not contain NUL characters`) };
    return { ok: true, input };
  }

  private validatorFor(schema: InputsSchema): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      if (this.compiled.size >= MAX_COMPILED) this.compiled.clear();
      validate = this.ajv.compile(enforced(schema));
      this.compiled.set(key, validate);
    }
    return validate;
  }
}

/** The schema as Ajv enforces it: every string bounded (media to a URL's length, others to MAX_INPUT_STRING). */
function enforced(schema: InputsSchema): object {
  const properties: Record<string, object> = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    const { title: _title, description: _description, ...rules } = property;
    properties[name] =
      property.type === 'string'
        ? { ...rules, maxLength: property.format === 'uri' ? MAX_URI_LENGTH : Math.min(property.maxLength ?? MAX_INPUT_STRING, MAX_INPUT_STRING) }
        : rules;
  }
  return { type: 'object', properties, ...(schema.required && { required: schema.required }), additionalProperties: false };
}

/** One message per field, in the schema's words, fields in the order Ajv found them. */
function describeErrors(schema: InputsSchema, errors: readonly ErrorObject[]): string[] {
  const messages = new Map<string, string>();
  const declared = Object.keys(schema.properties);
  for (const error of errors) {
    if (error.keyword === 'additionalProperties') {
      const name = String((error.params as { additionalProperty: string }).additionalProperty);
      const known = declared.length > 0 ? `its inputs: ${declared.join(', ')}` : 'it takes no inputs';
      messages.set(name, `input.${name}: is not an input of this model (${known}; see GET /api/v1/models/{id})`);
    } else if (error.keyword === 'required') {
      const name = String((error.params as { missingProperty: string }).missingProperty);
      messages.set(name, `input.${name}: is required (${expectation(schema.properties[name])})`);
    } else {
      const name = error.instancePath.split('/')[1];
      if (name === undefined || name === '') messages.set('', `input: must be an object of the model's inputs`);
      else if (schema.properties[name]) messages.set(name, `input.${decodePointer(name)}: ${expectation(schema.properties[name])}`);
    }
  }
  return [...messages.values()];
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}
