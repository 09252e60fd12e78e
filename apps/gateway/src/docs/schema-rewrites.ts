// What the public document's schemas go through after @nestjs/swagger made them (openapi.ts, toPublicDocument).

/** Names of the component schemas that the given parts refer to, directly or through other schemas. */
export function reachableSchemas(roots: unknown, schemas: Record<string, unknown>): Set<string> {
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
        const name = value.slice('#/components/schemas/'.length);
        if (!found.has(name)) {
          found.add(name);
          visit(schemas[name]);
        }
      } else {
        visit(value);
      }
    }
  };
  visit(roots);
  return found;
}

/**
 * OpenAPI 3.0's `nullable: true` as 3.1 says it: `null` among the types (and in `enum`), or
 * `anyOf` with `{type: "null"}` for a schema without a `type` (a `$ref`, an `allOf`).
 */
export function toJsonSchema2020(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(toJsonSchema2020);
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  for (const value of Object.values(schema)) toJsonSchema2020(value);
  if (typeof schema.nullable !== 'boolean') return;
  const nullable = schema.nullable;
  delete schema.nullable;
  if (!nullable) return;
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...(schema.enum as unknown[]), null];
  // A nullable reference (`allOf: [$ref]`, which @nestjs/swagger also gives `type: "object"`): the
  // reference or null. `type: ["object", "null"]` beside the allOf would still refuse null.
  const reference = schema.allOf !== undefined || schema.$ref !== undefined;
  if (reference) {
    delete schema.type;
    // One schema in the allOf is that schema: `anyOf: [{$ref}, {type: "null"}]`.
    if (Array.isArray(schema.allOf) && schema.allOf.length === 1) {
      Object.assign(schema, schema.allOf[0] as object);
      delete schema.allOf;
    }
  }
  if (typeof schema.type === 'string') {
    schema.type = [schema.type, 'null'];
  } else if (Array.isArray(schema.type)) {
    if (!schema.type.includes('null')) schema.type = [...(schema.type as string[]), 'null'];
  } else {
    const { description, example, ...rest } = schema;
    for (const key of Object.keys(schema)) delete schema[key];
    Object.assign(schema, { ...(description ? { description } : {}), anyOf: [rest, { type: 'null' }], ...(example !== undefined ? { example } : {}) });
  }
}

/** Examples for string fields that have none, by format, so no schema shows a bare "string". */
const FORMAT_EXAMPLES: Record<string, string> = {
  'date-time': '2026-11-23T17:40:00.112Z',
  uuid: '3f8e2a1c-7b4d-4e9a-9c61-0d5b2f7a8e13',
  uri: 'https://example.com/',
};

export function fillFormatExamples(schemas: Record<string, unknown>): void {
  for (const schema of Object.values(schemas)) {
    const properties = (schema as { properties?: Record<string, Record<string, unknown>> }).properties ?? {};
    for (const property of Object.values(properties)) {
      if (property.example !== undefined || property.enum !== undefined) continue;
      const types = Array.isArray(property.type) ? property.type : [property.type];
      if (!types.includes('string')) continue;
      const byFormat = typeof property.format === 'string' ? FORMAT_EXAMPLES[property.format] : undefined;
      if (byFormat !== undefined) property.example = byFormat;
      else if (types.includes('null')) property.example = null;
    }
  }
}
