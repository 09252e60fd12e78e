import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { Nested } from './nested';
import { knownProperties, validateShape } from './validate-shape';

class Binding {
  @IsOptional()
  @IsInt({ message: 'must be a positive integer' })
  @Min(1, { message: 'must be a positive integer' })
  maxInFlight: number | null = null;

  @IsInt()
  @Min(10)
  @Max(60_000, { message: '$property must be an integer between 10 and 60000' })
  pollIntervalMs = 1_000;

  @IsOptional()
  @Matches(/^[A-Z_][A-Z0-9_]*$/, { message: '$property: name the environment variable, not the token' })
  tokenEnv?: string;
}

class Model {
  @IsString({ message: 'must be a string' })
  id!: string;

  @IsBoolean()
  synchronous = false;

  @Nested(() => Binding)
  binding: Binding = new Binding();
}

class Catalogue {
  @Nested(() => Model, { each: true })
  models!: Model[];
}

describe('validateShape', () => {
  it('fills defaults from field initialisers and builds nested classes', () => {
    const result = validateShape(Catalogue, { models: [{ id: 'a' }, { id: 'b', binding: { maxInFlight: 4 } }] });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toBeInstanceOf(Catalogue);
    expect(result.value.models[0]).toBeInstanceOf(Model);
    expect(result.value.models[0].binding).toEqual({ maxInFlight: null, pollIntervalMs: 1_000 });
    expect(result.value.models[1].binding.maxInFlight).toBe(4);
  });

  it('names the path of each problem through objects and arrays', () => {
    const result = validateShape(Catalogue, {
      models: [{ id: 'a' }, { id: 'b' }, { id: 'c', binding: { maxInFlight: 0, pollIntervalMs: 70_000, tokenEnv: 'r8_secret' } }],
    });
    expect(result).toEqual({
      ok: false,
      problems: [
        'models[2].binding.maxInFlight must be a positive integer',
        'models[2].binding.pollIntervalMs must be an integer between 10 and 60000',
        'models[2].binding.tokenEnv: name the environment variable, not the token',
      ],
    });
  });

  it('starts the paths at options.path, and keeps class-validator default messages readable', () => {
    const result = validateShape(Model, { id: 7, synchronous: 'yes' }, { path: 'models[0] ("x")' });
    expect(result).toEqual({
      ok: false,
      problems: ['models[0] ("x").id must be a string', 'models[0] ("x").synchronous must be a boolean value'],
    });
  });

  it('gives one problem per property unless asked for all', () => {
    const plain = { models: [{ id: 'a', binding: { pollIntervalMs: 1.5 } }] };
    const first = validateShape(Catalogue, plain);
    const all = validateShape(Catalogue, plain, { allProblems: true });
    expect(first.ok || first.problems).toEqual(['models[0].binding.pollIntervalMs must be an integer number']);
    expect(all.ok || all.problems).toEqual([
      'models[0].binding.pollIntervalMs must not be less than 10',
      'models[0].binding.pollIntervalMs must be an integer number',
    ]);
  });

  it('refuses a value that is not an object, and a nested one that is not', () => {
    expect(validateShape(Model, [1])).toEqual({ ok: false, problems: ['value must be an object'] });
    expect(validateShape(Model, 'x', { path: 'entry', notObjectMessage: 'must be an object with id' })).toEqual({
      ok: false,
      problems: ['entry must be an object with id'],
    });
    expect(validateShape(Model, { id: 'a', binding: 5 })).toEqual({ ok: false, problems: ['binding must be an object'] });
    expect(validateShape(Catalogue, { models: [{ id: 'a' }, 3] })).toEqual({ ok: false, problems: ['models[1] must be an object'] });
  });

  it('keeps, strips or refuses properties the class does not declare', () => {
    const plain = { id: 'a', colour: 'red', binding: { depth: 3 } };
    const kept = validateShape(Model, plain);
    expect(kept.ok && (kept.value as unknown as Record<string, unknown>).colour).toBe('red');
    const stripped = validateShape(Model, plain, { unknown: 'strip' });
    expect(stripped.ok && Object.keys(stripped.value).sort()).toEqual(['binding', 'id', 'synchronous']);
    expect(validateShape(Model, plain, { unknown: 'forbid', path: 'model' })).toEqual({
      ok: false,
      problems: ['model.colour is not a known property', 'model.binding.depth is not a known property'],
    });
    const custom = validateShape(Model, plain, { unknown: 'forbid', unknownMessage: (p, known) => `is not a field (known: ${known.join(', ')})` });
    expect(custom.ok || custom.problems[0]).toBe('colour is not a field (known: id, synchronous, binding)');
  });

  it('refuses __proto__ and constructor as keys at any depth where unknown properties are not kept', () => {
    const plain: unknown = JSON.parse('{"id": "a", "__proto__": {"x": 1}, "binding": {"constructor": {}}, "tags": [{"__proto__": null}]}');
    expect(validateShape(Model, plain, { path: 'm', unknown: 'strip' })).toEqual({
      ok: false,
      problems: ['m.__proto__ is a reserved name, never a field', 'm.binding.constructor is a reserved name, never a field', 'm.tags[0].__proto__ is a reserved name, never a field'],
    });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('takes no property into a class that declares none', () => {
    class Nothing {}
    expect(validateShape(Nothing, {}, { unknown: 'forbid' }).ok).toBe(true);
    expect(validateShape(Nothing, { a: 1 }, { unknown: 'forbid', path: 'x' })).toEqual({ ok: false, problems: ['x.a is not a known property'] });
    const stripped = validateShape(Nothing, { a: 1 }, { unknown: 'strip' });
    expect(stripped.ok && Object.keys(stripped.value)).toEqual([]);
  });

  it('lists the properties a class declares', () => {
    expect(knownProperties(Binding)).toEqual(['maxInFlight', 'pollIntervalMs', 'tokenEnv']);
  });
});

describe('knownProperties', () => {
  class Base {
    @IsString()
    a = '';

    @IsString()
    b = '';
  }
  class Derived extends Base {
    @IsInt()
    c = 0;
  }

  it("lists a base class's properties before its extension's", () => {
    expect(knownProperties(Derived)).toEqual(['a', 'b', 'c']);
  });
});
