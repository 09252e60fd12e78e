import { getMetadataArgsStorage } from 'typeorm';

/** `accountId` -> `account_id`: a property's column name, as the entities name their columns. */
export type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S;

/**
 * A table's row as pg returns it to raw SQL, derived from its entity: each property under its
 * column's name, with the value pg gives (`Raw` overrides the columns pg returns otherwise, such as
 * a bigint, which comes as a string).
 */
export type RowOf<Entity, Raw extends Partial<Record<string, unknown>> = object> = {
  [K in keyof Entity & string as SnakeCase<K>]: SnakeCase<K> extends keyof Raw ? Raw[SnakeCase<K>] : Entity[K];
};

/** An entity's columns, read once from its TypeORM declaration: the one list of a table's columns. */
export interface EntityColumns<Entity> {
  /** The column names, in the entity's order. */
  readonly names: readonly string[];
  /** The columns, each as `<of>.<column>` (a table alias, or a composite value such as `(r.job)`). */
  list(of: string): string;
  /** The entity of a row raw SQL returned (each column's transformer applied, as TypeORM would). */
  fromRow(row: object): Entity;
}

function snakeCase(property: string): string {
  return property.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * The columns of an entity class as its decorators declare them, so that a repository's raw SQL
 * (named columns, never `*`: a prepared statement whose result changed under it fails) and its
 * mapper follow the entity instead of restating it. Every column must be named as its property in
 * snake_case, which `RowOf` assumes: anything else is refused here, at start-up.
 */
export function entityColumns<Entity extends object>(entity: new () => Entity): EntityColumns<Entity> {
  const columns = getMetadataArgsStorage()
    .filterColumns(entity)
    .map((column) => {
      const name = column.options.name ?? column.propertyName;
      if (name !== snakeCase(column.propertyName)) {
        throw new Error(`${entity.name}.${column.propertyName}: its column is "${name}", not "${snakeCase(column.propertyName)}"`);
      }
      const transformer = column.options.transformer;
      const from = transformer && !Array.isArray(transformer) ? (value: unknown) => transformer.from(value) as unknown : null;
      return { name, property: column.propertyName, from };
    });
  if (columns.length === 0) throw new Error(`${entity.name} declares no columns`);
  const names = columns.map((c) => c.name);
  return {
    names,
    list: (of) => names.map((name) => `${of}.${name}`).join(', '),
    fromRow: (row) => {
      const values = row as Record<string, unknown>;
      const result = new entity() as Record<string, unknown>;
      for (const { name, property, from } of columns) result[property] = from ? from(values[name]) : values[name];
      return result as Entity;
    },
  };
}
