import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import * as ts from 'typescript';
import { GENERATION_OUTPUT_FIELDS, GENERATION_RECORD_FIELDS, GENERATION_TYPES, GenerationRecordPayload, JOB_STATUSES, OutputField, RecordField } from '@gen/contracts';
import { GenerationDto, GenerationOutputDto } from '../../apps/gateway/src/docs/generation.dto';
import { WEBHOOK_BODY_FIELDS } from '../../apps/webhooks/src/deliveries/webhook-body';

/**
 * The generation record is declared once, by GENERATION_RECORD_FIELDS (libs/contracts); each copy
 * written by hand for its own audience is held to it here, and a difference is reported by copy and
 * field: "GenerationDto.progress: nullable is false, the record says true".
 */
const ROOT = join(__dirname, '..', '..');
const FIELDS = Object.entries(GENERATION_RECORD_FIELDS) as Array<[string, RecordField]>;
const OUTPUT_FIELDS = Object.entries(GENERATION_OUTPUT_FIELDS) as Array<[string, OutputField]>;
const ENUMS: Record<NonNullable<RecordField['values']>, readonly string[]> = { JOB_STATUSES, GENERATION_TYPES };
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** A copy's fields by name, in its order, each with what it says about the field. */
type Copy = Array<[name: string, facts: Record<string, unknown>]>;

/** Missing, extra and out-of-order fields of a copy, then each fact of a field that differs from `expected`. */
function differences(copy: string, actual: Copy, expected: Copy, options: { ordered: boolean; of?: string } = { ordered: true }): string[] {
  const of = options.of ?? 'the record';
  const out: string[] = [];
  const names = actual.map(([name]) => name);
  const wanted = expected.map(([name]) => name);
  for (const name of wanted) if (!names.includes(name)) out.push(`${copy} has no field ${name}, ${of} has`);
  for (const name of names) if (!wanted.includes(name)) out.push(`${copy}.${name}: not a field of ${of}`);
  const common = names.filter((name) => wanted.includes(name));
  if (options.ordered && out.length === 0 && common.join() !== wanted.join()) {
    const at = common.findIndex((name, index) => name !== wanted[index]);
    out.push(`${copy}.${common[at]}: out of order (the record has ${wanted[at]} there: ${wanted.join(', ')})`);
  }
  const expectedFacts = new Map(expected);
  for (const [name, facts] of actual) {
    const want = expectedFacts.get(name);
    if (!want) continue;
    for (const [fact, value] of Object.entries(want)) {
      if (JSON.stringify(facts[fact]) !== JSON.stringify(value)) out.push(`${copy}.${name}: ${fact} is ${JSON.stringify(facts[fact])}, the record says ${JSON.stringify(value)}`);
    }
  }
  return out;
}

/** The TypeScript type a field has: `string | null`, `JobStatus`, `GenerationOutput[]`. */
function tsType(field: RecordField | OutputField): string {
  const base = {
    string: 'string',
    integer: 'number',
    number: 'number',
    enum: 'values' in field && field.values === 'JOB_STATUSES' ? 'JobStatus' : 'GenerationType',
    object: `Record<string, ${'items' in field ? field.items : ''}>`,
    array: `${'items' in field ? field.items : ''}[]`,
  }[field.type];
  return field.nullable ? `${base} | null` : base;
}

/** The members of an interface in a TypeScript file, with their type as written. */
function interfaceMembers(file: string, name: string): Copy {
  const source = ts.createSourceFile(file, read(file), ts.ScriptTarget.ES2022, true);
  const found = source.statements.find((node): node is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(node) && node.name.text === name);
  if (!found) throw new Error(`${file} declares no interface ${name}`);
  return found.members.filter(ts.isPropertySignature).map((member) => [member.name.getText(source), { type: member.type?.getText(source), optional: Boolean(member.questionToken) }]);
}

/** What the payload class's class-validator decorators say of each property. */
function payloadFacts(target: new () => unknown): Copy {
  const byName = new Map<string, string[]>();
  for (const meta of getMetadataStorage().getTargetValidationMetadatas(target, '', false, false)) {
    const rule = meta.name ?? meta.type;
    byName.set(meta.propertyName, [...(byName.get(meta.propertyName) ?? []), rule === 'isIn' ? `isIn(${(meta.constraints[0] as string[]).join('|')})` : rule]);
  }
  return [...byName].map(([name, rules]) => [name, { optional: rules.includes('conditionalValidation') || rules.includes('isOptional'), check: rules.filter((rule) => !['conditionalValidation', 'isOptional'].includes(rule)).sort() }]);
}

const payloadCheck = (field: RecordField): string[] => {
  if (field.type === 'enum') return [`isIn(${ENUMS[field.values!].join('|')})`];
  return [{ string: 'isString', integer: 'isNumber', number: 'isNumber', object: 'isObject', array: 'isArray' }[field.type]];
};

/** What @nestjs/swagger's @ApiProperty says of each property of a DTO class, in declaration order. */
function openApiFacts(target: new () => unknown): Copy {
  const names = (Reflect.getMetadata('swagger/apiModelPropertiesArray', target.prototype) as string[]).map((key) => key.slice(1));
  return names.map((name) => {
    const meta = Reflect.getMetadata('swagger/apiModelProperties', target.prototype, name) as Record<string, unknown>;
    const type = typeof meta.type === 'function' ? (meta.type as { name: string }).name : meta.type;
    return [
      name,
      {
        type: meta.isArray ? 'array' : type === 'String' ? 'string' : type,
        enum: meta.enum ?? null,
        nullable: meta.nullable === true,
        format: meta.format ?? null,
        required: meta.required !== false,
      },
    ];
  });
}

const openApiExpected = (field: RecordField | OutputField) => ({
  type: field.type === 'enum' ? 'string' : field.type,
  enum: 'values' in field && field.values ? ENUMS[field.values] : null,
  nullable: field.nullable,
  format: field.format ?? null,
  required: !('optional' in field && field.optional),
});

/** The fields of a TypedDict class in a Python file, with their annotation as written. */
function typedDictFields(text: string, name: string): Copy {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => new RegExp(`^class ${name}\\(TypedDict`).test(line));
  if (start < 0) throw new Error(`no TypedDict ${name}`);
  const fields: Copy = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\S/.test(line)) break; // the next top-level statement
    const match = /^ {4}([a-z_][a-z0-9_]*): (.+?)\s*$/.exec(line);
    if (match) fields.push([match[1], { type: match[2] }]);
  }
  return fields;
}

/** The Python annotation of a field: `Optional[str]`, `Dict[str, Any]`, `List[GenerationOutput]`. */
function pythonType(field: RecordField | OutputField): string {
  const item = (items: RecordField['items']) => ({ string: 'str', unknown: 'Any', GenerationOutput: 'GenerationOutput' })[items!];
  const items = 'items' in field ? field.items : undefined;
  const base = { string: 'str', integer: 'int', number: 'float', enum: 'str', object: `Dict[str, ${item(items)}]`, array: `List[${item(items)}]` }[field.type];
  return field.nullable ? `Optional[${base}]` : base;
}

const PYTHON_TYPES = 'sdk/python/generation_service/_types.py';
const WEBHOOK_FIELDS = FIELDS.filter(([, field]) => field.webhook).map(([name]) => name);

describe('the generation record, declared once (GENERATION_RECORD_FIELDS)', () => {
  it('GenerationRecord (libs/contracts/src/generation.ts) has its fields, in order, with their types', () => {
    const expected: Copy = FIELDS.map(([name, field]) => [name, { type: tsType(field), optional: false }]);
    expect(differences('GenerationRecord', interfaceMembers('libs/contracts/src/generation.ts', 'GenerationRecord'), expected)).toEqual([]);
  });

  it('GenerationRecordPayload checks each field by its type, optional where null is allowed or older producers omit it', () => {
    const expected: Copy = FIELDS.map(([name, field]) => [name, { optional: field.nullable || field.addedAfterV1, check: payloadCheck(field) }]);
    // Property order is not on the wire of a class-validator class: only names and rules count.
    expect(differences('GenerationRecordPayload', payloadFacts(GenerationRecordPayload), expected, { ordered: false })).toEqual([]);
  });

  it("the gateway's OpenAPI DTO (GenerationDto) documents each field, in order, with its type, nullability and format", () => {
    const expected: Copy = FIELDS.map(([name, field]) => [name, openApiExpected(field)]);
    expect(differences('GenerationDto', openApiFacts(GenerationDto), expected)).toEqual([]);
  });

  it('the webhook body (WEBHOOK_BODY_FIELDS, WebhookBody) is `event` and the subset the record marks `webhook`', () => {
    expect(WEBHOOK_BODY_FIELDS[0]).toBe('event');
    const body: Copy = WEBHOOK_BODY_FIELDS.slice(1).map((name) => [name, {}]);
    expect(differences('WEBHOOK_BODY_FIELDS', body, WEBHOOK_FIELDS.map((name) => [name, {}]), { ordered: false, of: "the record's webhook subset" })).toEqual([]);
    const declared = interfaceMembers('apps/webhooks/src/deliveries/webhook-body.ts', 'WebhookBody').map(([name]) => name);
    expect(declared).toEqual([...WEBHOOK_BODY_FIELDS]);
  });

  it("the Python SDK's Generation TypedDict has the record's fields, in order, with matching annotations", () => {
    const expected: Copy = FIELDS.map(([name, field]) => [name, { type: pythonType(field) }]);
    expect(differences('_types.py Generation', typedDictFields(read(PYTHON_TYPES), 'Generation'), expected)).toEqual([]);
  });

  it("the Python SDK's WebhookEvent TypedDict has the webhook body's fields, in wire order", () => {
    const fields = typedDictFields(read(PYTHON_TYPES), 'WebhookEvent').map(([name]) => name);
    expect(fields).toEqual([...WEBHOOK_BODY_FIELDS]);
  });

  it('an output (GenerationOutput, GenerationOutputDto, the Python GenerationOutput) has the declared fields, types and optionality', () => {
    const declared: Copy = OUTPUT_FIELDS.map(([name, field]) => [name, { type: tsType(field), optional: field.optional }]);
    expect(differences('GenerationOutput', interfaceMembers('libs/contracts/src/generation.ts', 'GenerationOutput'), declared, { ordered: true, of: 'an output' })).toEqual([]);
    const openApi: Copy = OUTPUT_FIELDS.map(([name, field]) => [name, openApiExpected(field)]);
    expect(differences('GenerationOutputDto', openApiFacts(GenerationOutputDto), openApi, { ordered: true, of: 'an output' })).toEqual([]);
    // A TypedDict with total=False: every key may be absent, so only the names and annotations count.
    const python: Copy = OUTPUT_FIELDS.map(([name, field]) => [name, { type: pythonType(field) }]);
    expect(differences('_types.py GenerationOutput', typedDictFields(read(PYTHON_TYPES), 'GenerationOutput'), python, { ordered: true, of: 'an output' })).toEqual([]);
  });

  it('a difference is reported by copy and field', () => {
    const python = read(PYTHON_TYPES).replace('    progress: Optional[float]\n', '    progress: float\n').replace('    canceled_at: Optional[str]\n', '');
    const expected: Copy = FIELDS.map(([name, field]) => [name, { type: pythonType(field) }]);
    expect(differences('_types.py Generation', typedDictFields(python, 'Generation'), expected)).toEqual([
      '_types.py Generation has no field canceled_at, the record has',
      '_types.py Generation.progress: type is "float", the record says "Optional[float]"',
    ]);
    const dto = openApiFacts(GenerationDto).map(([name, facts]): Copy[number] => [name, name === 'queue_position' ? { ...facts, nullable: false } : facts]);
    expect(differences('GenerationDto', dto, FIELDS.map(([name, field]) => [name, openApiExpected(field)]))).toEqual([
      'GenerationDto.queue_position: nullable is false, the record says true',
    ]);
    const swapped = interfaceMembers('libs/contracts/src/generation.ts', 'GenerationRecord');
    [swapped[1], swapped[2]] = [swapped[2], swapped[1]];
    expect(differences('GenerationRecord', swapped, FIELDS.map(([name, field]) => [name, { type: tsType(field), optional: false }]))).toEqual([
      'GenerationRecord.type: out of order (the record has status there: id, status, type, model, prompt, output_url, credits_charged, error, created_at, started_at, completed_at, canceled_at, queue_position, progress, output_expires_at, input, metadata, outputs)',
    ]);
  });
});
