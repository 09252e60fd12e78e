/**
 * The TypeScript SDK's API types, written from the OpenAPI document's component schemas: one
 * interface per schema (its name without `Dto`), each field with its description. The SDK's
 * `src/generated/openapi-types.ts` must equal what this makes of the live document
 * (test/e2e/sdk.e2e-spec.ts), so the SDK cannot drift from the API.
 */
type Schema = Record<string, any>;

export const SDK_TYPES_PATH = 'libs/sdk/src/generated/openapi-types.ts';

const typeName = (ref: string) => ref.replace('#/components/schemas/', '').replace(/Dto$/, '');

function literal(value: unknown): string {
  return value === null ? 'null' : JSON.stringify(value);
}

function typeOf(schema: Schema, indent: string): string {
  if (schema.$ref) return typeName(schema.$ref);
  if (schema.enum) return (schema.enum as unknown[]).map(literal).join(' | ');
  if (schema.const !== undefined) return literal(schema.const);
  if (schema.anyOf || schema.oneOf) return union((schema.anyOf ?? schema.oneOf).map((s: Schema) => typeOf(s, indent)));
  if (schema.allOf) {
    const all = (schema.allOf as Schema[]).map((s) => typeOf(s, indent)).join(' & ');
    // A nullable reference as @nestjs/swagger writes it: `allOf: [{ $ref }]` beside `type: ["object", "null"]`.
    return Array.isArray(schema.type) && schema.type.includes('null') ? `${all} | null` : all;
  }
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return schema.properties ? objectType(schema, indent) : 'unknown';
  return union(types.map((t) => single(t, schema, indent)));
}

function single(type: string, schema: Schema, indent: string): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = schema.items ? typeOf(schema.items, indent) : 'unknown';
      return /[ |&]/.test(item) ? `Array<${item}>` : `${item}[]`;
    }
    case 'object':
      return objectType(schema, indent);
    default:
      return 'unknown';
  }
}

function union(parts: string[]): string {
  return [...new Set(parts)].join(' | ');
}

function objectType(schema: Schema, indent: string): string {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
  const extra = schema.additionalProperties;
  if (properties.length === 0) {
    return `Record<string, ${extra && typeof extra === 'object' ? typeOf(extra, indent) : 'unknown'}>`;
  }
  return `{\n${members(schema, `${indent}  `)}${indent}}`;
}

function comment(text: string | undefined, indent: string): string {
  if (!text) return '';
  const lines = text.split('\n').map((line) => line.replace(/\*\//g, '*\\/'));
  return lines.length === 1 ? `${indent}/** ${lines[0]} */\n` : `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

function members(schema: Schema, indent: string): string {
  const required = new Set<string>(schema.required ?? []);
  const key = (name: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name));
  return Object.entries((schema.properties ?? {}) as Record<string, Schema>)
    .map(([name, property]) => `${comment(property.description, indent)}${indent}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(property, indent)};\n`)
    .join('');
}

/** The whole generated file for a document. */
export function sdkTypesFromOpenApi(doc: { components: { schemas: Record<string, Schema> } }): string {
  const names = Object.keys(doc.components.schemas).sort();
  const out = [
    '// Generated from the OpenAPI document (/api/v1/openapi.json) by test/support/sdk-types.ts: do not edit.',
    '// test/e2e/sdk.e2e-spec.ts fails when this file and the live document differ; to rewrite it:',
    '//   WRITE_SDK_TYPES=1 npx jest --config jest.config.js test/e2e/sdk.e2e-spec.ts',
    '',
  ];
  for (const name of names) {
    const schema = doc.components.schemas[name];
    const type = typeName(name);
    out.push(comment(schema.description, '').trimEnd());
    if (schema.properties) out.push(`export interface ${type} {\n${members(schema, '  ')}}`, '');
    else out.push(`export type ${type} = ${typeOf(schema, '')};`, '');
  }
  return out.filter((line, i) => line !== '' || out[i - 1] !== '').join('\n').replace(/\n+$/, '\n');
}
