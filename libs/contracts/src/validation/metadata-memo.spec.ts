import { getMetadataStorage, IsInt, IsString, validateSync } from 'class-validator';
import { knownProperties, validateShape } from './validate-shape';

/** The memo of class-validator's rule lookups (metadata-memo.ts) answers what the library would. */
describe('class-validator rule lookups, memoised', () => {
  class Base {
    @IsString() name!: string;
  }
  class Child extends Base {
    @IsInt() count!: number;
  }

  it('answers the same rules again, a base class’s included', () => {
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(Child, '', true, false);
    expect(storage.getTargetValidationMetadatas(Child, '', true, false)).toEqual(first);
    expect(knownProperties(Child)).toEqual(['name', 'count']);
    expect(validateShape(Child, { name: 'a', count: 1.5 })).toEqual({ ok: false, problems: ['count must be an integer number'] });
  });

  it('sees a rule added after a lookup', () => {
    class Late {
      value!: string;
    }
    expect(validateSync(Object.assign(new Late(), { value: 3 }), { forbidUnknownValues: false })).toHaveLength(0);
    IsString()(Late.prototype, 'value');
    expect(validateSync(Object.assign(new Late(), { value: 3 }))).toHaveLength(1);
    expect(knownProperties(Late)).toEqual(['value']);
  });
});
