import { IsArray, IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { IfGiven, Nested, Nullable, Rule } from '../validation';
import { SchemaSet } from './json-schema';

class Inner {
  @IsInt() @Min(1) @Max(9) count!: number;
}

class Outer {
  @IsString() @Length(1, 8) name!: string;
  @IsOptional() @IsString() note?: string | null;
  @Nullable() @IsString() cursor!: string | null;
  @IfGiven() @IsIn(['a', 'b']) mode?: 'a' | 'b';
  @IsArray() @Matches(/^k_/, { each: true }) keys!: string[];
  @Nested(() => Inner) inner!: Inner;
  @IsOptional() @Nested(() => Inner, { each: true }) more?: Inner[];
}

describe('SchemaSet (JSON Schema from class-validator decorators)', () => {
  it('says required, optional and nullable as the conditions decide them, with types, enums, patterns and bounds', () => {
    const set = new SchemaSet();
    expect(set.ref(Outer)).toEqual({ $ref: '#/components/schemas/Outer' });
    expect(set.schemas.get('Outer')).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 8 },
        note: { type: ['string', 'null'] },
        cursor: { type: ['string', 'null'] },
        mode: { type: 'string', enum: ['a', 'b'] },
        keys: { type: 'array', items: { type: 'string', pattern: '^k_' } },
        inner: { $ref: '#/components/schemas/Inner' },
        more: { type: ['array', 'null'], items: { $ref: '#/components/schemas/Inner' } }, // @IsOptional lets null through too
      },
      required: ['name', 'cursor', 'keys', 'inner'],
    });
    expect(set.schemas.get('Inner')).toEqual({ type: 'object', properties: { count: { type: 'integer', minimum: 1, maximum: 9 } }, required: ['count'] });
  });

  it('a nullable nested class is a reference or null', () => {
    class Holder {
      @Nullable() @Nested(() => Inner) inner!: Inner | null;
    }
    const set = new SchemaSet();
    set.ref(Holder);
    expect(set.schemas.get('Holder')?.properties).toEqual({ inner: { oneOf: [{ $ref: '#/components/schemas/Inner' }, { type: 'null' }] } });
  });

  it('stops on a rule it cannot say, naming the class and property', () => {
    class Odd {
      @Rule('isOdd', (value) => typeof value === 'number' && value % 2 === 1, 'must be odd') n!: number;
    }
    expect(() => new SchemaSet().ref(Odd)).toThrow('Odd.n: @isOdd has no JSON Schema; add it to RULES in libs/contracts/src/asyncapi/json-schema.ts');
  });

  it('refuses two classes of one name (schemas are named by class)', () => {
    const set = new SchemaSet();
    set.ref(Inner);
    const other = (() => {
      class Inner {
        @IsString() x!: string;
      }
      return Inner;
    })();
    expect(() => set.ref(other)).toThrow('Two payload classes are named Inner');
  });
});
